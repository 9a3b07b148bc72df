"""torch_sim: the simulated PrivateUse1 device ("sim") for the stock CPU-only torch.

Importing it names PrivateUse1 "sim", loads the backend (_SIMC: guard, allocators, hooks,
kernels, CPU fallback) and installs ``torch.sim``, built by torch_core's generic
device-module builder. Then ``torch.randn(3, device="sim")``, ``x.to("sim:1")``,
``torch.sim.Stream()``, ``torch.accelerator`` and ``torch.sim.memory_allocated()`` work.

Settings (read when the device is first used): TORCH_SIM_DEVICE_COUNT, TORCH_SIM_MEMORY_MB,
PYTORCH_SIM_ALLOC_CONF, TORCH_SIM_FALLBACK (allow | warn | error).

Autoload: an installed torch_sim declares the entry point
``[torch.backends] torch_sim = torch_sim:_autoload``, so stock torch loads it at the end of
``import torch`` (torch/__init__.py ``_import_device_backends``) and code that never
imports torch_sim can use ``device="sim"``; ``TORCH_DEVICE_BACKEND_AUTOLOAD=0`` turns that
off. Proven by //tests/conformance:autoload_test.
"""

import torch

NAME = "sim"

if torch._C._get_privateuse1_backend_name() != NAME:
    torch.utils.rename_privateuse1_backend(NAME)

import _SIMC  # noqa: E402  (registers the backend; after the rename, so it is named "sim")
from torch_core import build_device_module  # noqa: E402

if not hasattr(torch, NAME):
    _module = build_device_module(NAME, _SIMC)
    _module._C = _SIMC
    _module.config = _SIMC._config
    torch._register_device_module(NAME, _module)
    torch.utils.generate_methods_for_privateuse1_backend(for_storage=True)

device_module = getattr(torch, NAME)


def _autoload() -> None:
    """The ``torch.backends`` entry point: torch calls it at the end of ``import torch``.

    Loading this module (which the entry point does first) has already registered the
    device; this only checks that it did, so a broken install fails at ``import torch``
    with torch's "Failed to load the backend extension" error rather than later.
    """
    if getattr(torch, NAME, None) is not device_module:
        raise RuntimeError(f"torch_sim was imported but torch.{NAME} is not its device module")


__all__ = ["NAME", "device_module"]
