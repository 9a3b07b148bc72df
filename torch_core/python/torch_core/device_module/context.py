"""What the parts of a device module share while it is built: the device type's name,
its C module and the namespace the parts fill."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeVar

import torch

# What the device functions accept: a torch.device or "name:i" of this device, an index,
# or None for the current device.
DeviceLike = torch.device | str | int | None
_T = TypeVar("_T")


@dataclass
class DeviceContext:
    name: str  # the device type as torch spells it ("cuda", or the PrivateUse1 name)
    C: Any  # the backend's C module (torch_core::bind_device_api functions)
    module_name: str  # the module's __name__ ("torch.<name>")
    ns: dict[str, Any] = field(default_factory=dict)  # the module's names, in the making

    def export(self, obj: _T, export_name: str | None = None) -> _T:
        self.ns[export_name or obj.__name__] = obj
        return obj

    def index(self, device: DeviceLike) -> int:
        """The device's index; the current device's for None."""
        return self.ns["_get_device_index"](device, optional=True)
