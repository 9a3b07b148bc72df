"""Streams and events of the device: subclasses of torch.Stream / torch.Event, so the
generic torch APIs accept them."""

from __future__ import annotations

import torch

from torch_core.device_module.context import DeviceContext, DeviceLike


def add_streams(ctx: DeviceContext) -> None:
    name, C = ctx.name, ctx.C
    _lazy_init = ctx.ns["_lazy_init"]
    current_device = ctx.ns["current_device"]

    class Stream(torch.Stream):
        """A stream of the device: work queued on one runs in order."""

        def __new__(cls, device: DeviceLike = None, priority: int = 0, **kwargs: int) -> Stream:
            if "stream_id" in kwargs:
                return super().__new__(cls, **kwargs)
            _lazy_init()
            index = ctx.index(device)
            return super().__new__(cls, device=torch.device(name, index), priority=priority)

    Stream.__qualname__ = "Stream"
    Stream.__module__ = ctx.module_name
    ctx.export(Stream)

    # torch.Event's methods accept only torch.Event itself as the other event
    # (elapsed_time, Stream.wait_event check the exact type), so Event makes plain
    # torch.Event objects of this device; isinstance(e, Event) still holds for them.
    class _EventMeta(type):
        def __call__(
            cls, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False
        ) -> torch.Event:
            _lazy_init()
            return torch.Event(
                device=torch.device(name, current_device()),
                enable_timing=enable_timing,
                blocking=blocking,
                interprocess=interprocess,
            )

        def __instancecheck__(cls, obj: object) -> bool:
            return isinstance(obj, torch.Event) and obj.device.type == name

    class Event(metaclass=_EventMeta):
        """An event of the device: a point in a stream to wait for or time
        (``Event(enable_timing=False, blocking=False, interprocess=False)``)."""

    Event.__qualname__ = "Event"
    Event.__module__ = ctx.module_name
    ctx.export(Event)

    def _wrap(packed: tuple[int, int, int]) -> Stream:
        stream_id, device_index, device_type = packed
        return Stream(stream_id=stream_id, device_index=device_index, device_type=device_type)

    @ctx.export
    def current_stream(device: DeviceLike = None) -> Stream:
        _lazy_init()
        return _wrap(C._current_stream(ctx.index(device)))

    @ctx.export
    def default_stream(device: DeviceLike = None) -> Stream:
        _lazy_init()
        return _wrap(C._default_stream(ctx.index(device)))

    @ctx.export
    def set_stream(stream: torch.Stream | None) -> None:
        if stream is None:
            return
        _lazy_init()
        C._set_stream(stream.stream_id, stream.device_index, stream.device_type)

    class StreamContext:
        """Makes ``stream`` current (and its device, if another) inside the block."""

        def __init__(self, stream: torch.Stream | None):
            self.stream = stream
            self.prev_stream: Stream | None = None
            self.prev_device = -1

        def __enter__(self) -> None:
            if self.stream is None:
                return
            self.prev_device = C._exchange_device(self.stream.device_index)
            self.prev_stream = current_stream(self.stream.device_index)
            set_stream(self.stream)

        def __exit__(self, *args: object) -> None:
            if self.stream is None:
                return
            set_stream(self.prev_stream)
            C._exchange_device(self.prev_device)

    StreamContext.__qualname__ = "StreamContext"
    ctx.export(StreamContext)

    @ctx.export
    def stream(stream: torch.Stream | None) -> StreamContext:
        return StreamContext(stream)

    if hasattr(C, "_sleep"):
        ctx.export(C._sleep, "_sleep")
