"""torch_cuda: the standalone CUDA backend for the stock CPU-only PyTorch (RFC-0045)."""

from torch_cuda import backends, core
from torch_cuda.core.version import BuildInfo, build_info

__all__ = ["BuildInfo", "backends", "build_info", "core"]
