"""Builds a backend's device module (``torch.<name>``) from its C module.

Written once for every backend: the C module is a pybind11 module on which
``torch_core::bind_device_api`` (torch_core/csrc/device/python_bindings.h) bound the
device functions (``_device_count``, ``_current_stream``, ``_memory_stats``, ...); the
parts of this package turn them into the ``torch.cuda``-shaped API: lazy initialisation
with a fork check, devices, streams and events (subclasses of ``torch.Stream`` /
``torch.Event``, so the generic torch APIs accept them), memory statistics, random number
state, and the CPU fallback's policy and counters. No backend is named here; the caller
passes its name and C module.
"""

from __future__ import annotations

import sys
import types

from torch_core.device_module.context import DeviceContext, DeviceLike
from torch_core.device_module.devices import add_devices
from torch_core.device_module.fallback import add_fallback
from torch_core.device_module.lazy_init import add_lazy_init
from torch_core.device_module.memory import add_memory
from torch_core.device_module.random_state import add_random_state
from torch_core.device_module.streams import add_streams
from torch_core.exit_collection import collect_at_exit
from torch_core.gpu_trace import build_gpu_trace_module

__all__ = ["DeviceLike", "build_device_module"]

# In order: a later part uses what an earlier one exported (_lazy_init, _get_device_index).
_PARTS = (add_lazy_init, add_devices, add_streams, add_memory, add_random_state, add_fallback)


def build_device_module(
    name: str, C: types.ModuleType, *, module_name: str | None = None
) -> types.ModuleType:
    """Returns a new module ``torch.<name>`` over ``C``; register it with
    ``torch._register_device_module(name, module)``.

    Args:
        name: the device type as torch spells it (``"cuda"``, or the PrivateUse1 name).
        C: the backend's C module (``torch_core::bind_device_api`` functions).
        module_name: the module's ``__name__`` (default ``torch.<name>``).
    """
    mod = types.ModuleType(module_name or f"torch.{name}")
    mod.__doc__ = f"The {name} device: devices, streams, events, memory, random state."
    ctx = DeviceContext(name, C, mod.__name__)
    for add_part in _PARTS:
        add_part(ctx)
    # torch.serialization asks device_module._utils._get_device_index.
    ctx.ns["_utils"] = types.SimpleNamespace(_get_device_index=ctx.ns["_get_device_index"])
    # torch.<name>._gpu_trace, importable by that name as torch.cuda._gpu_trace is.
    gpu_trace = build_gpu_trace_module(name, mod.__name__)
    ctx.ns["_gpu_trace"] = gpu_trace
    sys.modules.setdefault(gpu_trace.__name__, gpu_trace)

    for key, value in ctx.ns.items():
        if callable(value) and getattr(value, "__module__", "").startswith(__name__):
            try:
                value.__module__ = mod.__name__
            except (AttributeError, TypeError):
                pass
        setattr(mod, key, value)
    mod.__all__ = sorted(k for k in ctx.ns if not k.startswith("_"))
    collect_at_exit()
    return mod
