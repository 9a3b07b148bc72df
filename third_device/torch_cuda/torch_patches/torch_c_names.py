"""Ledger entry: torch._C's CUDA names, in place before torch.cuda is imported.

What: sets the ``torch._C._cuda_*`` / ``_Cuda*`` names torch/cuda/*.py reads
    (torch_cuda/torch_c/, built over _CUDAC), the multi-device copies
    torch.nn.parallel.comm reads (``_broadcast*``, ``_scatter*``, ``_gather*``:
    torch_cuda/torch_c/comm.py) and ``torch._C._has_cuda = True``,
    right after torch._C's init, before torch/__init__.py imports torch.cuda.
Why: the CPU wheel's libtorch_python binds them only ``#ifdef USE_CUDA``; torch/cuda
    captures them at import (``Stream``/``Event`` subclass ``_CudaStreamBase`` /
    ``_CudaEventBase`` or dummies, ``_cudart``, ``_exchange_device``, ...) and
    ``torch.cuda.is_available()`` tests ``hasattr(torch._C, "_cuda_getDeviceCount")``.
Upstream: a registration API for the CUDA Python bindings (RFC-0045's _CUDAC
    initialised on its own, torch.cuda reading them from it, not from torch._C).
"""

from __future__ import annotations

from types import ModuleType

from torch_cuda.torch_patches._pinned import check_torch_version, probe

NAME = "torch_c_names"
WHAT = "sets torch._C._cuda_*/_Cuda* names and torch._C._has_cuda before torch.cuda is imported"
WHY = "the CPU wheel binds them only #ifdef USE_CUDA; torch.cuda captures them at import"
UPSTREAM = "RFC-0045: torch.cuda reads its bindings from an independently initialised _CUDAC"


def check(torch_version: str | None, torch_C: ModuleType) -> None:
    check_torch_version(torch_version, entry=NAME)
    probe(
        NAME,
        not hasattr(torch_C, "_cuda_getDeviceCount") and not torch_C._has_cuda,
        "a CPU-only torch._C (no _cuda_getDeviceCount, _has_cuda False)",
        "CUDA bindings already present",
    )


def apply(torch_C: ModuleType, C: ModuleType) -> list[str]:
    from torch_cuda import torch_c

    names = torch_c.build(torch_C, C)
    for name, value in names.items():
        setattr(torch_C, name, value)
    torch_C._has_cuda = True
    return sorted(names)
