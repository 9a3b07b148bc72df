"""torch._C._CudaStreamBase and _CudaEventBase (stock: THCPStream, THCPEvent), the bases
of torch.cuda.Stream and torch.cuda.Event, made as subclasses of torch._C.Stream and
torch._C.Event so that torch's generic stream and event APIs accept them."""

from __future__ import annotations

from types import ModuleType

from torch_cuda.torch_c.device import current_device


def _stream_args(stream: object | None) -> tuple[int, int, int]:
    """A stream as _CUDAC takes it (stream_id, device_index, device_type); None: current."""
    if stream is None:
        import torch

        stream = torch.cuda.current_stream()
    return stream.stream_id, stream.device_index, stream.device_type


def build(torch_C: ModuleType, C: ModuleType) -> dict[str, type]:
    class _CudaStreamBase(torch_C.Stream):
        """torch._C._CudaStreamBase (THCPStream) over torch._C.Stream."""

        def __new__(
            cls,
            priority: int = 0,
            stream_id: int = 0,
            device_index: int = 0,
            device_type: int = 0,
            stream_ptr: int = 0,
        ) -> _CudaStreamBase:
            if stream_ptr:  # torch.cuda.ExternalStream, on the current device
                stream_id, device_index, device_type = C._external_stream(
                    int(stream_ptr), current_device(C)
                )
            elif stream_id == 0 and device_index == 0 and device_type == 0:
                import torch

                device = torch.device("cuda", current_device(C))
                return torch_C.Stream.__new__(cls, device=device, priority=priority)
            return torch_C.Stream.__new__(
                cls,
                stream_id=stream_id,
                device_index=device_index,
                device_type=device_type,
                priority=priority,
            )

        @property
        def cuda_stream(self) -> int:
            import torch

            with torch.cuda.StreamContext(self):
                return int(C._current_raw_stream(self.device_index))

    class _CudaEventBase(torch_C.Event):
        """torch._C._CudaEventBase (THCPEvent) over torch._C.Event. An interprocess event
        (interprocess=True, or opened by from_ipc_handle) is the runtime's IPC event,
        _CUDAC._IpcEvent, made on first use: torch._C.Event cannot make one."""

        def __new__(
            cls,
            enable_timing: bool = False,
            blocking: bool = False,
            interprocess: bool = False,
            external: bool = False,
        ) -> _CudaEventBase:
            import torch

            if interprocess and enable_timing:
                raise RuntimeError(
                    "An interprocess event cannot measure time: CUDA requires interprocess "
                    "events to have timing disabled (enable_timing=False)"
                )
            index = current_device(C)
            event = torch_C.Event.__new__(
                cls,
                device=torch.device("cuda", index),
                enable_timing=enable_timing,
                blocking=blocking,
                interprocess=interprocess,
            )
            event._enable_timing = bool(enable_timing)  # torch._C.Event does not say
            event._interprocess = bool(interprocess)
            event._ipc_device = index  # torch._C.Event's device has no index until recorded
            event._ipc = None
            return event

        @classmethod
        def from_ipc_handle(cls, device: object, handle: bytes) -> _CudaEventBase:
            import torch

            index = device if isinstance(device, int) else torch.device(device).index
            index = current_device(C) if index is None else index
            event = torch_C.Event.__new__(cls, device=torch.device("cuda", index))
            event._enable_timing = False
            event._interprocess = True
            event._ipc_device = index
            event._ipc = C._IpcEvent.open(index, bytes(handle))
            return event

        def _ipc_event(self) -> object:
            if self._ipc is None:
                self._ipc = C._IpcEvent(self._ipc_device)
            return self._ipc

        def record(self, stream: torch_C.Stream | None = None) -> None:
            if not self._interprocess:
                return super().record(stream)
            self._ipc_event().record(*_stream_args(stream))
            return None

        def wait(self, stream: torch_C.Stream | None = None) -> None:
            if not self._interprocess:
                return super().wait(stream)
            self._ipc_event().wait(*_stream_args(stream))
            return None

        def query(self) -> bool:
            if not self._interprocess:
                return super().query()
            return self._ipc is None or self._ipc.query()  # never recorded: complete

        def synchronize(self) -> None:
            if not self._interprocess:
                return super().synchronize()
            if self._ipc is not None:
                self._ipc.synchronize()
            return None

        @property
        def cuda_event(self) -> int:
            return self.event_id

        def elapsed_time(self, end_event: torch_C.Event) -> float:
            # Stock CUDAEvent's checks and messages, in its order.
            if not (self._enable_timing and getattr(end_event, "_enable_timing", False)):
                raise RuntimeError(
                    "Both events must be created with argument 'enable_timing=True'."
                )
            if not self.event_id or not end_event.event_id:  # never recorded
                raise RuntimeError("Both events must be recorded before calculating elapsed time.")
            return float(
                C._event_elapsed_time(self.event_id, end_event.event_id, self.device.index)
            )

        def ipc_handle(self) -> bytes:
            if not self._interprocess:
                raise RuntimeError(
                    "ipc_handle: the event was not created as an interprocess event; create "
                    "it with torch.cuda.Event(interprocess=True)"
                )
            return self._ipc_event().ipc_handle()

    return {"_CudaStreamBase": _CudaStreamBase, "_CudaEventBase": _CudaEventBase}
