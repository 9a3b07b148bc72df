"""torch_core: the device-agnostic layer between stock torch and any backend (Python side).

Importing the package loads nothing: `torch_core.preload` must be importable before torch
(from a `.pth` file at interpreter start), so the torch-dependent parts load on first use.
"""

from __future__ import annotations

__all__ = ["build_device_module"]


def __getattr__(name: str) -> object:
    if name == "build_device_module":
        from torch_core.device_module import build_device_module

        return build_device_module
    raise AttributeError(f"module 'torch_core' has no attribute {name!r}")
