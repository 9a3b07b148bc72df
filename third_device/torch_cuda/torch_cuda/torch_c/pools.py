"""torch._C's CUDA memory-pool and pluggable-allocator names (stock: torch/csrc/cuda/MemPool.cpp,
CUDAPluggableAllocator.cpp and the pool functions of Module.cpp) over _CUDAC's pools:
torch.cuda.MemPool and use_mem_pool, a thread's or every stream's allocations routed to a
pool, a pool's live allocations (inductor's cudagraph trees), and allocators made from a
shared library's functions (CUDAPluggableAllocator, change_current_allocator).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from torch_cuda.torch_c.graphs import Pool
from torch_cuda.torch_c.names import Names


def build(C: ModuleType) -> dict[str, Any]:
    names = Names()
    names["_MemPool"] = C._MemPool
    names["_cuda_CUDAAllocator"] = C._Allocator

    @names.export
    def _cuda_customAllocator(alloc_fn: int, free_fn: int) -> object:
        return C._custom_allocator(int(alloc_fn), int(free_fn))

    @names.export
    def _cuda_changeCurrentAllocator(allocator: object) -> None:
        C._change_current_allocator(allocator)

    @names.export
    def _cuda_getAllocator() -> object:
        return C._get_allocator()

    @names.export
    def _cuda_beginAllocateToPool(device: int, mempool_id: Pool) -> None:
        C._begin_allocate_to_pool(int(device), tuple(mempool_id))

    @names.export
    def _cuda_beginAllocateCurrentThreadToPool(device: int, mempool_id: Pool) -> None:
        C._begin_allocate_current_thread_to_pool(int(device), tuple(mempool_id))

    @names.export
    def _cuda_endAllocateToPool(device: int, mempool_id: Pool) -> None:
        C._end_allocate_to_pool(int(device), tuple(mempool_id))

    @names.export
    def _cuda_releasePool(device: int, mempool_id: Pool) -> None:
        C._release_pool(int(device), tuple(mempool_id))

    @names.export
    def _cuda_checkPoolLiveAllocations(
        device: int, mempool_id: Pool, expected_live_allocations: set[int]
    ) -> bool:
        live = C._pool_live_allocations(int(device), tuple(mempool_id))
        return set(live) == {int(ptr) for ptr in expected_live_allocations}

    return names
