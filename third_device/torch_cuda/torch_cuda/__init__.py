"""torch_cuda: the standalone CUDA backend for the stock CPU-only PyTorch (RFC-0045).

Once installed, its ``.pth`` activates it at interpreter start (``_torch_cuda_activate``)
and unmodified CUDA code runs: ``torch.cuda.is_available()``, ``x.cuda()``,
``torch.randn(..., device="cuda")``, streams, events, memory statistics, autocast,
``torch.accelerator``. ``import torch_cuda`` before torch activates it too; after a torch
that initialised without it, the import fails and says why.

Importing this package loads neither torch nor the backend library (it runs inside the
``torch._C`` import hook); its attributes load on first use.
"""

from __future__ import annotations

import importlib
import sys

import _torch_cuda_activate

NAME = "cuda"

if _torch_cuda_activate.state() == "inactive":
    if "torch._C" in sys.modules:
        from torch_core.preload import TorchAlreadyImportedError

        raise TorchAlreadyImportedError(
            "torch_cuda cannot activate: torch was imported before it and torch._C "
            "initialised without the CUDA backend (its CUDA hooks and torch.cuda's "
            "bindings are fixed at that point). Install torch_cuda so that its "
            "torch_cuda_activate.pth runs at interpreter start (and do not set "
            "TORCH_CUDA_ACTIVATE=0), or import torch_cuda before torch."
        )
    _torch_cuda_activate.activate()
    importlib.import_module("torch")  # initialises torch._C through the hook

_LAZY = {
    "backends": "torch_cuda.backends",
    "core": "torch_cuda.core",
    "torch_patches": "torch_cuda.torch_patches",
}
_LAZY_FROM_VERSION = ("BuildInfo", "build_info")
_LAZY_FALLBACK = (
    "fallback_counts",
    "reset_fallback_counts",
    "set_fallback_policy",
    "get_fallback_policy",
)


def __getattr__(name: str) -> object:
    if name in _LAZY:
        return importlib.import_module(_LAZY[name])
    if name in _LAZY_FROM_VERSION:
        return getattr(importlib.import_module("torch_cuda.core.version"), name)
    if name in _LAZY_FALLBACK:
        return getattr(importlib.import_module("torch_cuda.core"), name)
    raise AttributeError(f"module 'torch_cuda' has no attribute {name!r}")


__all__ = ["NAME", "BuildInfo", "backends", "build_info", "core", "torch_patches", *_LAZY_FALLBACK]
