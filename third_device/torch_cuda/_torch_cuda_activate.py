"""Activates torch_cuda at interpreter start (imported by ``torch_cuda_activate.pth``).

Stock torch fixes its CUDA hooks while ``torch._C`` initialises and ``torch.cuda`` binds
``torch._C`` names when it is imported, so torch_cuda must be in place before either
(torch_cuda/torch_patches). This module only puts torch_core's one-shot finder for
``torch._C`` on ``sys.meta_path``: no torch import, no shared library, nothing else, so a
program that never imports torch pays a few microseconds. When ``torch._C`` is imported,
the finder loads the backend library just before its init and installs the ``torch._C``
names right after (torch_cuda._loader).

``TORCH_CUDA_ACTIVATE=0`` turns the automatic activation off; ``import torch_cuda``
before torch still activates explicitly.
"""

import os
import sys

_state = "inactive"  # -> "hooked" (finder installed) -> "active" (names installed)


def _before_init() -> None:
    from torch_cuda import _loader

    _loader.before_torch_c_init()


def _after_init(torch_C: object) -> None:
    global _state
    from torch_cuda import _loader

    _loader.after_torch_c_init(torch_C)
    _state = "active"


def activate() -> None:
    """Arranges for torch_cuda to load with ``torch._C`` (idempotent).

    Raises torch_core.preload.TorchAlreadyImportedError when torch._C initialised
    without torch_cuda: it is too late, and the message says why.
    """
    global _state
    if _state != "inactive":
        return
    from torch_core.preload import install_torch_c_hook

    install_torch_c_hook(_before_init, _after_init)
    _state = "hooked"


def state() -> str:
    return _state


if os.environ.get("TORCH_CUDA_ACTIVATE", "1") != "0" and "torch._C" not in sys.modules:
    activate()
