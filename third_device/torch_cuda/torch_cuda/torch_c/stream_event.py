"""torch._C._CudaStreamBase and _CudaEventBase (stock: THCPStream, THCPEvent), the bases
of torch.cuda.Stream and torch.cuda.Event, made as subclasses of torch._C.Stream and
torch._C.Event so that torch's generic stream and event APIs accept them."""

from __future__ import annotations

from types import ModuleType

from torch_cuda.torch_c.device import current_device


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
        """torch._C._CudaEventBase (THCPEvent) over torch._C.Event."""

        def __new__(
            cls,
            enable_timing: bool = False,
            blocking: bool = False,
            interprocess: bool = False,
            external: bool = False,
        ) -> _CudaEventBase:
            import torch

            event = torch_C.Event.__new__(
                cls,
                device=torch.device("cuda", current_device(C)),
                enable_timing=enable_timing,
                blocking=blocking,
                interprocess=interprocess,
            )
            event._enable_timing = bool(enable_timing)  # torch._C.Event does not say
            return event

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
            raise RuntimeError("torch_cuda: interprocess events are not supported")

    return {"_CudaStreamBase": _CudaStreamBase, "_CudaEventBase": _CudaEventBase}
