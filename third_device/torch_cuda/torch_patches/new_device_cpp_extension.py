"""Ledger entry: ``torch.utils.cpp_extension.NewDeviceCppExtension``.

What: once ``torch.utils.cpp_extension`` is imported, it has ``NewDeviceCppExtension``
    (torch_cuda.cpp_extension's: a setuptools Extension of CUDA operators built against
    torch_cuda, with ``BuildExtension`` from the same module), the name RFC-0045 gives the
    extension builder of a decoupled backend; setup.py files written to the RFC import it
    from torch.
Why: the pinned torch's torch/utils/cpp_extension.py has CppExtension and CUDAExtension
    (which looks for a CUDA toolkit and torch's CUDA build) and no NewDeviceCppExtension.
Upstream: RFC-0045's NewDeviceCppExtension in torch.utils.cpp_extension, taking the
    backend's headers, libraries and device compiler from the installed backend.
"""

from __future__ import annotations

from types import ModuleType

from torch_cuda.torch_patches._after_import import run_after_import
from torch_cuda.torch_patches._pinned import check_torch_version, probe, torch_source

NAME = "new_device_cpp_extension"
WHAT = "adds torch.utils.cpp_extension.NewDeviceCppExtension (torch_cuda.cpp_extension's)"
WHY = "RFC-0045 names the backend extension builder there; the pinned torch has no such name"
UPSTREAM = "RFC-0045's NewDeviceCppExtension in torch.utils.cpp_extension"

_ATTRIBUTE = "NewDeviceCppExtension"


def check(torch_version: str | None, torch_C: ModuleType) -> None:
    check_torch_version(torch_version, entry=NAME)
    text = torch_source(torch_C, "utils", "cpp_extension.py")
    probe(
        NAME,
        f"def {_ATTRIBUTE}" not in text and "def CUDAExtension" in text,
        f"torch/utils/cpp_extension.py without {_ATTRIBUTE} (and with CUDAExtension)",
        f"a torch that defines {_ATTRIBUTE} itself",
    )


def NewDeviceCppExtension(*args: object, **kwargs: object) -> object:
    """torch_cuda.cpp_extension.NewDeviceCppExtension (imported when first called)."""
    from torch_cuda import cpp_extension

    return cpp_extension.NewDeviceCppExtension(*args, **kwargs)  # type: ignore[arg-type]


def _install(module: ModuleType) -> None:
    setattr(module, _ATTRIBUTE, NewDeviceCppExtension)


def apply() -> None:
    run_after_import("torch.utils.cpp_extension", _install)
