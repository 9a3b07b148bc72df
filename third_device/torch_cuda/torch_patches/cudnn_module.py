"""Ledger entry: ``torch._C._cudnn`` and ``torch._C._has_cudnn``.

What: sets ``torch._C._cudnn`` (getCompileVersion, getRuntimeVersion, getVersionInt,
    is_cuda, RNNMode) over _CUDAC's cuDNN versions and ``torch._C._has_cudnn = True``,
    right after torch._C's init, before torch.backends.cudnn is imported.
Why: the CPU wheel's libtorch_python binds them only with cuDNN compiled in;
    torch.backends.cudnn imports ``_cudnn`` at import (``version()``, ``is_available()``,
    ``is_acceptable()``, which nn.LSTM's ``flatten_parameters`` asks) and
    torch.backends.cudnn.rnn maps RNN modes through ``_cudnn.RNNMode``.
Upstream: the cuDNN bindings registered by the CUDA backend (RFC-0045's _CUDAC), not
    compiled into torch._C.
"""

from __future__ import annotations

import enum
from types import ModuleType

from torch_cuda.torch_patches._pinned import check_torch_version, probe

NAME = "cudnn_module"
WHAT = "sets torch._C._cudnn (versions, RNNMode) and torch._C._has_cudnn"
WHY = "bound only in torch builds with cuDNN; torch.backends.cudnn imports them"
UPSTREAM = "cuDNN's Python bindings registered by the CUDA backend (RFC-0045)"


class RNNMode(enum.IntEnum):
    """cudnnRNNMode_t, as stock binds it."""

    rnn_relu = 0
    rnn_tanh = 1
    lstm = 2
    gru = 3


def version_tuple(version: int) -> tuple[int, int, int]:
    """CUDNN_VERSION's encoding (major * 10000 + minor * 100 + patch) as a tuple."""
    return version // 10000, version // 100 % 100, version % 100


def build(C: ModuleType) -> ModuleType:
    """torch._C._cudnn over _CUDAC's versions. The runtime's is asked for when called (it
    loads cuDNN), not while torch imports."""
    module = ModuleType("torch._C._cudnn", "cuDNN's versions and enums (torch_cuda)")
    module.getCompileVersion = lambda: version_tuple(C._cudnn_compile_version())  # type: ignore[attr-defined]
    module.getRuntimeVersion = lambda: version_tuple(C._cudnn_runtime_version())  # type: ignore[attr-defined]
    module.getVersionInt = C._cudnn_runtime_version  # type: ignore[attr-defined]
    module.is_cuda = True  # type: ignore[attr-defined]
    module.RNNMode = RNNMode  # type: ignore[attr-defined]
    return module


def check(torch_version: str | None, torch_C: ModuleType) -> None:
    check_torch_version(torch_version, entry=NAME)
    probe(
        NAME,
        not hasattr(torch_C, "_cudnn") and not torch_C._has_cudnn,
        "a torch._C without cuDNN (no _cudnn, _has_cudnn False)",
        "cuDNN bindings already present",
    )


def apply(torch_C: ModuleType, C: ModuleType) -> None:
    torch_C._cudnn = build(C)
    torch_C._has_cudnn = True
