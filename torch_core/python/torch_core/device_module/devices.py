"""Devices: count, current device, index parsing, the device context managers,
properties."""

from __future__ import annotations

from typing import Any

import torch

from torch_core.device_module.context import DeviceContext, DeviceLike


def add_devices(ctx: DeviceContext) -> None:
    name, C = ctx.name, ctx.C
    _lazy_init = ctx.ns["_lazy_init"]

    @ctx.export
    def is_available() -> bool:
        return C._device_count() > 0

    @ctx.export
    def device_count() -> int:
        return int(C._device_count())

    @ctx.export
    def current_device() -> int:
        _lazy_init()
        return int(C._current_device())

    @ctx.export
    def _get_device_index(
        device: DeviceLike, optional: bool = False, allow_cpu: bool = False
    ) -> int:
        if isinstance(device, str):
            device = torch.device(device)
        index: int | None
        if isinstance(device, torch.device):
            if device.type == name:
                index = device.index
            elif allow_cpu and device.type == "cpu":
                return -1
            else:
                raise ValueError(f"Expected a {name} device, but got: {device}")
        elif isinstance(device, int):
            index = device
        elif device is None:
            index = None
        else:
            raise TypeError(f"Expected a device (torch.device, str or int), but got {device!r}")
        if index is None:
            if not optional:
                raise ValueError(
                    f"Expected a {name} device with an index, or an integer, but got: {device}"
                )
            return current_device()
        return index

    @ctx.export
    def set_device(device: DeviceLike) -> None:
        index = ctx.index(device)
        if index >= 0:
            _lazy_init()
            C._set_device(index)

    class device:
        """Context manager that makes ``device`` the current device, then restores it."""

        def __init__(self, device: DeviceLike):
            self.idx = ctx.index(device) if device is not None else -1
            self.prev_idx = -1

        def __enter__(self) -> None:
            if self.idx >= 0:
                _lazy_init()
            self.prev_idx = C._exchange_device(self.idx)

        def __exit__(self, *args: object) -> bool:
            C._exchange_device(self.prev_idx)
            return False

    device.__qualname__ = "device"
    ctx.export(device)

    class device_of(device):
        """Context manager that makes the device of a tensor or storage current."""

        def __init__(self, obj: torch.Tensor | torch.UntypedStorage):
            index = obj.get_device() if obj.device.type == name else -1
            super().__init__(index)

    device_of.__qualname__ = "device_of"
    ctx.export(device_of)

    @ctx.export
    def synchronize(device: DeviceLike = None) -> None:
        _lazy_init()
        C._synchronize(ctx.index(device))

    class _DeviceProperties:
        def __init__(self, props: dict[str, Any]):
            self.__dict__.update(props)

        def __repr__(self) -> str:
            return (
                f"_{name.capitalize()}DeviceProperties(name='{self.name}', major={self.major}, "
                f"minor={self.minor}, total_memory={self.total_memory // (1024 * 1024)}MB, "
                f"multi_processor_count={self.multi_processor_count})"
            )

    @ctx.export
    def get_device_properties(device: DeviceLike = None) -> _DeviceProperties:
        _lazy_init()
        return _DeviceProperties(C._get_device_properties(ctx.index(device)))

    @ctx.export
    def get_device_name(device: DeviceLike = None) -> str:
        return get_device_properties(device).name

    @ctx.export
    def get_device_capability(device: DeviceLike = None) -> tuple[int, int]:
        props = get_device_properties(device)
        return props.major, props.minor

    @ctx.export
    def get_amp_supported_dtype() -> list[torch.dtype]:
        return [torch.float16, torch.bfloat16]
