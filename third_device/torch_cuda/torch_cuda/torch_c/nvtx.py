"""torch._C._nvtx (stock: torch/csrc/cuda/shared/nvtx.cpp), which torch.cuda.nvtx imports:
_CUDAC's NVTX3 bindings (csrc/pybinding/nvtx_bindings.h)."""

from __future__ import annotations

from types import ModuleType


def build(C: ModuleType) -> dict[str, object]:
    return {"_nvtx": C._nvtx}
