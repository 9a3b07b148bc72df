"""A device module's ``_gpu_trace``: the callback registries torch's GPU trace fires.

While a tracer is active (``torch._C._activate_gpu_trace()``), torch looks up
``torch.<device>._gpu_trace.<Kind>Callbacks`` for every event, stream, synchronisation
and memory call the backend reports (torch_core/csrc/device/gpu_trace.h). torch.cuda has
stock's module; any other device module gets this one, with the same names, so tools
written against ``torch.cuda._gpu_trace`` work on it and a trace never fails the lookup.
"""

from __future__ import annotations

import types
from collections.abc import Callable

from torch._utils import CallbackRegistry

__all__ = ["build_gpu_trace_module"]

# Registry name -> (registration function suffix, what the callbacks receive).
_KINDS = {
    "EventCreationCallbacks": ("event_creation", "event creation"),
    "EventDeletionCallbacks": ("event_deletion", "event deletion"),
    "EventRecordCallbacks": ("event_record", "event record"),
    "EventWaitCallbacks": ("event_wait", "event wait"),
    "MemoryAllocationCallbacks": ("memory_allocation", "memory allocation"),
    "MemoryDeallocationCallbacks": ("memory_deallocation", "memory deallocation"),
    "StreamCreationCallbacks": ("stream_creation", "stream creation"),
    "DeviceSynchronizationCallbacks": ("device_synchronization", "device synchronization"),
    "StreamSynchronizationCallbacks": ("stream_synchronization", "stream synchronization"),
    "EventSynchronizationCallbacks": ("event_synchronization", "event synchronization"),
}


def _registrar(registry: CallbackRegistry) -> Callable[[Callable[..., None]], None]:
    def register(cb: Callable[..., None]) -> None:
        registry.add_callback(cb)

    return register


def build_gpu_trace_module(device_name: str, module_name: str) -> types.ModuleType:
    """``<module_name>._gpu_trace`` for `device_name`, shaped as ``torch.cuda._gpu_trace``."""
    mod = types.ModuleType(f"{module_name}._gpu_trace")
    for registry_name, (suffix, what) in _KINDS.items():
        registry: CallbackRegistry = CallbackRegistry(f"{device_name} {what}")
        setattr(mod, registry_name, registry)
        register = _registrar(registry)
        register.__name__ = f"register_callback_for_{suffix}"
        setattr(mod, register.__name__, register)
    return mod
