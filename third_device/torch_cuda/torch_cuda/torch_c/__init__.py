"""The torch._C names torch/cuda (and dynamo, inductor, torch.backends, torch.nn.parallel)
expect of a CUDA build, made from _CUDAC: torch_core's device functions plus CUDA's own.

``coverage`` says, without importing torch, which names there are and what each is made
of; ``build(torch_C, C)`` makes them; torch_patches/torch_c_names.py installs them. One
module per part of stock's bindings: device and streams, cuBLAS, graphs, memory, the stream and
event bases, memory pools and pluggable allocators, multi-device copies (comm), TunableOp,
and the unsupported features' stubs.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any


def build(torch_C: ModuleType, C: ModuleType) -> dict[str, Any]:
    """The names, made over torch._C's Stream/Event bases and the _CUDAC module C."""
    # Imported here: the package imports no torch (the coverage tool reads it without).
    from torch_cuda.torch_c import (
        blas,
        comm,
        device,
        graphs,
        memory,
        nvtx,
        pools,
        stream_event,
        tunable,
        unsupported,
    )

    names: dict[str, Any] = {}
    for part in (
        comm.NAMES,
        blas.build(C),
        device.build(C),
        graphs.build(C),
        memory.build(C),
        nvtx.build(C),
        pools.build(C),
        stream_event.build(torch_C, C),
        tunable.build(C),
        unsupported.build(),
    ):
        overlap = names.keys() & part.keys()
        if overlap:
            raise RuntimeError(f"torch_cuda makes these torch._C names twice: {sorted(overlap)}")
        names.update(part)
    for name, value in names.items():
        # Made inside build(): "build.<locals>.X" would be their name in tracebacks.
        if "<locals>" in getattr(value, "__qualname__", ""):
            value.__qualname__ = name
    return names
