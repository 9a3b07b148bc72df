"""torch._C's CUDA graph names (stock: torch/csrc/cuda/Graph.cpp) over _CUDAC's graphs:
stream capture into the runtime's graph, with the capture's memory in a private pool of
the caching allocator (torch_core's device_graph.h; routing allocations to pools: pools.py).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from torch_cuda.torch_c.names import Names

Pool = tuple[int, int]


def build(C: ModuleType) -> dict[str, Any]:
    names = Names()

    class _CUDAGraph(C._Graph):  # type: ignore[misc, name-defined]
        """torch.cuda.CUDAGraph's base: capture, instantiate, replay, reset, pool,
        register_generator_state."""

        def raw_cuda_graph(self) -> int:
            return int(self.raw_graph())

        def raw_cuda_graph_exec(self) -> int:
            return int(self.raw_graph_exec())

    names["_CUDAGraph"] = _CUDAGraph

    @names.export
    def _graph_pool_handle() -> Pool:
        return tuple(C._graph_pool_handle())

    @names.export
    def _cuda_isCurrentStreamCapturing() -> bool:
        return bool(C._is_current_stream_capturing())

    return names
