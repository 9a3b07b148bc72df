"""Ledger entry: torch.cuda's legacy tensor types as constructors.

What: ``torch.cuda.FloatTensor(2, 3)``, ``torch.cuda.LongTensor([1, 2])``,
    ``torch.cuda.sparse.FloatTensor(indices, values, size)`` and the other
    ``torch.cuda.*Tensor`` types construct CUDA tensors, as in stock CUDA torch (with its
    deprecation warning): their ``tp_new`` becomes ``_CUDAC``'s, which calls
    libtorch_python's ``legacy_tensor_ctor`` for the CUDA (or SparseCUDA) key. The type
    objects exist only once ``torch._C._initExtension`` has run, so the entry applies
    right after ``torch._tensor_docs`` executes, which torch/__init__.py imports later.
Why: the CPU wheel's ``Tensor_new`` (torch/csrc/tensor/python_tensor.cpp) refuses CUDA
    types with "type torch.cuda.FloatTensor not available. Torch not compiled with CUDA
    enabled." (a compile-time ``cuda_enabled()``), false once torch_cuda is active.
Upstream: ``Tensor_new`` asking whether the device type has a backend at run time (as
    ``torch.cuda.is_available``), not whether CUDA was compiled in.
"""

from __future__ import annotations

from types import ModuleType

from torch_cuda.torch_patches._after_import import run_after_import
from torch_cuda.torch_patches._pinned import check_torch_version, probe, torch_source

NAME = "legacy_cuda_tensor_types"
WHAT = "torch.cuda.*Tensor legacy constructors build CUDA tensors through _CUDAC's tp_new"
WHY = (
    "the CPU wheel's Tensor_new refuses CUDA types at compile time ('Torch not compiled with "
    "CUDA enabled')"
)
UPSTREAM = "Tensor_new asking at run time whether the device type has a backend"

_INIT_EXTENSION = "_C._initExtension(_manager_path())"
_TENSOR_DOCS = "from torch import _size_docs, _storage_docs, _tensor_docs, _torch_docs"


def check(torch_version: str | None, torch_C: ModuleType) -> None:
    check_torch_version(torch_version, entry=NAME)
    text = torch_source(torch_C, "__init__.py")
    ordered = _INIT_EXTENSION in text and _TENSOR_DOCS in text.split(_INIT_EXTENSION, 1)[1]
    probe(
        NAME,
        ordered,
        f"torch/__init__.py importing torch._tensor_docs after `{_INIT_EXTENSION}`",
        "another order",
    )


def _install(C: ModuleType) -> None:
    import torch

    C._install_legacy_tensor_constructors([t for t in torch._tensor_classes if t.is_cuda])


def apply(C: ModuleType) -> None:
    run_after_import("torch._tensor_docs", lambda module: _install(C))
