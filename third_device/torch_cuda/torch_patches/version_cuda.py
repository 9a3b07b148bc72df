"""Ledger entry: ``torch.version.cuda``.

What: sets ``torch.version.cuda`` to the CUDA version torch_cuda was built with
    (_CUDAC.cuda_version), right after torch._C's init.
Why: torch/version.py is generated at torch's build; the CPU wheel says ``None``, and
    user code and torch itself (``torch.cuda.is_bf16_supported``, cpp_extension,
    ``torch.utils.collect_env``) read it to decide what CUDA is there.
Upstream: torch.version.cuda read from the CUDA backend at run time (RFC-0045).
"""

from __future__ import annotations

import sys
from types import ModuleType

from torch_cuda.torch_patches._pinned import check_torch_version, probe

NAME = "version_cuda"
WHAT = "sets torch.version.cuda to torch_cuda's CUDA version"
WHY = "generated at torch's build: None in the CPU wheel, read by user code and torch"
UPSTREAM = "torch.version.cuda asked of the CUDA backend at run time (RFC-0045)"


def check(torch_version: str | None, version_module: ModuleType | None) -> None:
    check_torch_version(torch_version, entry=NAME)
    found = getattr(version_module, "cuda", "<no torch.version>")
    probe(
        NAME,
        version_module is not None and found is None,
        "torch.version.cuda None (CPU wheel)",
        repr(found),
    )


def apply(C: ModuleType) -> None:
    sys.modules["torch.version"].cuda = C.cuda_version
