"""torch._C's CUDA memory names (stock: torch/csrc/cuda/Module.cpp and MemorySnapshot.cpp)
over _CUDAC's caching allocator functions: statistics, snapshots and history, limits,
raw blocks."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from torch_cuda.torch_c.names import Names


def _nest(flat: dict[str, int]) -> dict[str, Any]:
    """{"a.b.c": 1} -> {"a": {"b": {"c": 1}}}, the shape torch.cuda.memory reads."""
    nested: dict[str, Any] = {}
    for key, value in flat.items():
        node = nested
        parts = key.split(".")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = value
    return nested


def _refuse_unsupported_history(compile_context: bool, global_record_annotations: bool) -> None:
    if compile_context or global_record_annotations:
        raise RuntimeError(
            "torch_cuda's memory history records Python stacks only: pass "
            "compile_context=False and global_record_annotations=False"
        )


def build(C: ModuleType) -> Names:
    names = Names()
    fractions: dict[int, float] = {}

    @names.export
    def _cuda_memoryStats(device: int) -> dict[str, Any]:
        return _nest(dict(C._memory_stats(int(device))))

    @names.export
    def _cuda_resetPeakMemoryStats(device: int) -> None:
        C._reset_peak_memory_stats(int(device))

    @names.export
    def _cuda_resetAccumulatedMemoryStats(device: int) -> None:
        C._reset_accumulated_memory_stats(int(device))

    @names.export
    def _cuda_hostMemoryStats() -> dict[str, Any]:
        return dict(C._host_memory_stats())

    @names.export
    def _cuda_resetPeakHostMemoryStats() -> None:
        C._reset_peak_host_memory_stats()

    @names.export
    def _cuda_resetAccumulatedHostMemoryStats() -> None:
        C._reset_accumulated_host_memory_stats()

    @names.export
    def _cuda_emptyCache() -> None:
        C._empty_cache()

    @names.export
    def _host_emptyCache() -> None:
        C._empty_host_cache()

    @names.export
    def _cuda_cudaCachingAllocator_raw_alloc(size: int, cuda_stream: int) -> int:
        return int(C._raw_alloc(int(size), int(cuda_stream)))

    @names.export
    def _cuda_cudaCachingAllocator_raw_delete(ptr: int) -> None:
        C._raw_delete(int(ptr))

    @names.export
    def _cuda_cudaCachingAllocator_is_enabled() -> bool:
        return bool(C._caching_allocator_is_enabled())

    @names.export
    def _cuda_cudaCachingAllocator_enable(enabled: bool) -> None:
        C._caching_allocator_enable(bool(enabled))

    @names.export
    def _cuda_getAllocatorBackend() -> str:
        return "native"

    @names.export
    def _cuda_getMemoryFraction(device: int) -> float:
        return fractions.get(int(device), 1.0)

    @names.export
    def _cuda_setMemoryFraction(fraction: float, device: int) -> None:
        C._set_memory_fraction(float(fraction), int(device))
        fractions[int(device)] = float(fraction)

    @names.export
    def _cuda_setMemoryMetadata(metadata: str) -> None:
        C._set_memory_metadata(str(metadata))

    @names.export
    def _cuda_getMemoryMetadata() -> str:
        return str(C._get_memory_metadata())

    @names.export
    def _cuda_memorySnapshot(mempool_id: object = None) -> dict[str, Any]:
        # mempool_id: None, or (pool id, pool id, include_traces) from memory_snapshot();
        # a pool other than (0, 0) keeps that pool's segments only, as stock's.
        include_traces = not isinstance(mempool_id, tuple) or bool(mempool_id[2])
        devices = range(C._device_count())
        segments = list(C._memory_snapshot())  # records "snapshot" in the traces
        if isinstance(mempool_id, tuple) and tuple(mempool_id[:2]) != (0, 0):
            pool = (int(mempool_id[0]), int(mempool_id[1]))
            segments = [s for s in segments if tuple(s["segment_pool_id"]) == pool]
        return {
            "segments": segments,
            "device_traces": [list(C._memory_trace(d)) if include_traces else [] for d in devices],
            "allocator_settings": {},
        }

    @names.export
    def _cuda_cudaHostAllocator() -> int:
        return int(C._host_allocator_address())

    @names.export
    def _cuda_isHistoryEnabled() -> bool:
        return bool(C._is_history_enabled())

    @names.export
    def _cuda_allocationTraceback(data_ptr: int) -> list[dict[str, Any]] | None:
        return C._allocation_traceback(int(data_ptr))

    @names.export
    def _cuda_record_memory_history(
        enabled: str | None,
        context: str | None,
        stacks: str,
        max_entries: int,
        clear_history: bool = False,
        compile_context: bool = False,
        global_record_annotations: bool = False,
        skip_actions: list[str] | None = None,
    ) -> None:
        _refuse_unsupported_history(compile_context, global_record_annotations)
        C._record_memory_history(
            enabled, context, stacks, max_entries, clear_history, list(skip_actions or [])
        )

    @names.export
    def _cuda_record_memory_history_legacy(
        enabled: bool,
        record_context: bool = True,
        trace_alloc_max_entries: int = 1,
        trace_alloc_record_context: bool = False,
        record_context_cpp: bool = False,
        clear_history: bool = False,
        compile_context: bool = False,
        global_record_annotations: bool = False,
        skip_actions: list[str] | None = None,
    ) -> None:
        # As stock: the trace holds at least one entry; record_context keeps the blocks'
        # stacks, trace_alloc_record_context the trace's too.
        _refuse_unsupported_history(compile_context, global_record_annotations)
        if not enabled:
            C._record_memory_history(None, None, "python", 1, clear_history, [])
            return
        context = None
        if record_context:
            context = "alloc" if trace_alloc_record_context else "state"
        stacks = "all" if record_context_cpp else "python"
        C._record_memory_history(
            "all",
            context,
            stacks,
            max(1, int(trace_alloc_max_entries)),
            clear_history,
            list(skip_actions or []),
        )

    return names
