"""torch_sim: the simulated PrivateUse1 device ("sim") for the stock CPU-only torch.

Importing it names PrivateUse1 "sim", loads the backend (_SIMC: guard, allocators, hooks,
kernels, CPU fallback) and installs ``torch.sim``, built by torch_core's generic
device-module builder. Then ``torch.randn(3, device="sim")``, ``x.to("sim:1")``,
``torch.sim.Stream()``, ``torch.accelerator`` and ``torch.sim.memory_allocated()`` work.

Settings (read when the device is first used): TORCH_SIM_DEVICE_COUNT, TORCH_SIM_MEMORY_MB,
PYTORCH_SIM_ALLOC_CONF, TORCH_SIM_FALLBACK (allow | warn | error).
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

__all__ = ["NAME", "device_module"]
