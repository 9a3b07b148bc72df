"""The torch._C names torch/cuda (and dynamo, inductor, torch.backends) expect of a CUDA
build, made from _CUDAC (torch_core's device functions plus CUDA's own).

``PROVIDED`` says, without importing torch, which names there are and what each is
made of (tools/cuda_names_coverage.py prints it against the probe's list of 93);
``build(torch_C, C)`` makes them. torch_patches/torch_c_names.py installs them.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from types import ModuleType
from typing import Any

# name -> what provides it (for the coverage table).
PROVIDED: dict[str, str] = {
    "_cuda_getDeviceCount": "_CUDAC._device_count (runtime device count, 0 without devices)",
    "_cuda_init": (
        "_CUDAC._init + default_generators / _get_device_properties (as THCPModule_initExtension)"
    ),
    "_cuda_isInBadFork": "_CUDAC._is_in_bad_fork (torch's fork handler for the CUDA device)",
    "_cuda_getDevice": "_CUDAC._current_device (torch_core guard)",
    "_cuda_setDevice": "_CUDAC._set_device (torch_core guard)",
    "_cuda_exchangeDevice": "_CUDAC._exchange_device",
    "_cuda_maybeExchangeDevice": "_CUDAC._exchange_device, only once initialised",
    "_cuda_getCurrentStream": "_CUDAC._current_stream (torch_core stream registry)",
    "_cuda_getDefaultStream": "_CUDAC._default_stream",
    "_cuda_setStream": "_CUDAC._set_stream",
    "_cuda_getCurrentRawStream": "_CUDAC._current_raw_stream (runtime stream handle)",
    "_cuda_synchronize": "_CUDAC._synchronize (current device)",
    "_cuda_memoryStats": "_CUDAC._memory_stats, nested as torch.cuda.memory expects",
    "_cuda_resetPeakMemoryStats": "_CUDAC._reset_peak_memory_stats",
    "_cuda_resetAccumulatedMemoryStats": "_CUDAC._reset_accumulated_memory_stats",
    "_cuda_hostMemoryStats": "_CUDAC._host_memory_stats (the pinned host allocator's)",
    "_cuda_resetPeakHostMemoryStats": "_CUDAC._reset_peak_host_memory_stats",
    "_cuda_resetAccumulatedHostMemoryStats": "_CUDAC._reset_accumulated_host_memory_stats",
    "_cuda_emptyCache": "_CUDAC._empty_cache (device and pinned caches)",
    "_cuda_cudaCachingAllocator_raw_alloc": "_CUDAC._raw_alloc (a block of the caching allocator)",
    "_cuda_cudaCachingAllocator_raw_delete": "_CUDAC._raw_delete",
    "_cuda_memorySnapshot": (
        "_CUDAC._memory_snapshot and _memory_trace per device as {'segments', 'device_traces'}"
    ),
    "_cuda_record_memory_history": (
        "_CUDAC._record_memory_history (Python stacks; stacks='all' adds no C++ frames)"
    ),
    "_cuda_record_memory_history_legacy": "_CUDAC._record_memory_history, arguments mapped",
    "_cuda_allocationTraceback": "_CUDAC._allocation_traceback (the block's Python stack)",
    "_cuda_setMemoryMetadata": "_CUDAC._set_memory_metadata (per thread, on trace entries)",
    "_cuda_getMemoryMetadata": "_CUDAC._get_memory_metadata",
    "_cuda_getMemoryFraction": "the fraction last set (1.0 until set)",
    "_cuda_setMemoryFraction": "_CUDAC._set_memory_fraction (caching allocator limit)",
    "_cuda_canDeviceAccessPeer": "True between the backend's devices (runtime copies)",
    "_cuda_getArchFlags": "_CUDAC.built_archs (the kernels' SASS architectures)",
    "_cuda_get_sync_debug_mode": "a stored mode (no sync warnings yet)",
    "_cuda_set_sync_debug_mode": "stores the mode",
    "_cuda_getCompiledVersion": "_CUDAC.cudart_version",
    "_cuda_isCurrentStreamCapturing": "False (no CUDA graph capture)",
    "_cuda_isHistoryEnabled": "_CUDAC._is_history_enabled",
    "_cuda_getAllocatorBackend": "'native' (torch_core's caching allocator)",
    "_cuda_cudaCachingAllocator_is_enabled": "_CUDAC._caching_allocator_is_enabled",
    "_cuda_cudaCachingAllocator_enable": (
        "_CUDAC._caching_allocator_enable (off: blocks straight from the runtime and back)"
    ),
    "_cuda_clearCublasWorkspaces": "no-op (cuBLAS workspaces are kept for the process)",
    "_cuda_get_cudnn_benchmark_limit": "a stored limit (no cuDNN)",
    "_cuda_set_cudnn_benchmark_limit": "stores the limit",
    "_cuda_sleep": "_CUDAC._sleep (simulated variant only: a timed work item)",
    "_cuda_getStreamFromExternal": "_CUDAC._external_stream (a stream made outside torch)",
    # Outside the 93 (torch.nn.parallel.comm reads them, not torch/cuda): stock's comm.cpp.
    "_broadcast": "torch_cuda._comm.broadcast (device-to-device copies)",
    "_broadcast_out": "torch_cuda._comm.broadcast_out",
    "_broadcast_coalesced": "torch_cuda._comm.broadcast_coalesced (flat buffers per chunk)",
    "_scatter": "torch_cuda._comm.scatter (on the given streams)",
    "_scatter_out": "torch_cuda._comm.scatter_out",
    "_gather": "torch_cuda._comm.gather",
    "_gather_out": "torch_cuda._comm.gather_out",
    "_cuda_ipc_collect": "no-op (no CUDA IPC)",
    "_CudaStreamBase": "Python subclass of torch._C.Stream",
    "_CudaEventBase": "subclass of torch._C.Event; elapsed_time via _CUDAC._event_elapsed_time",
    "_CudaDeviceProperties": "Python class over _CUDAC._get_device_properties",
    "_cudart": "namespace: cudaMemGetInfo (_CUDAC._mem_get_info), cudaGetErrorString, profiler",
}

# Names torch/cuda imports unconditionally once _CudaStreamBase exists (graphs.py,
# memory.py) for features torch_cuda does not have yet: present so the import works,
# raising a clear error when used. name -> the feature.
STUBS: dict[str, str] = {
    "_CUDAGraph": "CUDA graphs",
    "_graph_pool_handle": "CUDA graph memory pools",
    "_cuda_beginAllocateToPool": "allocating to a memory pool",
    "_cuda_beginAllocateCurrentThreadToPool": "allocating to a memory pool",
    "_cuda_endAllocateToPool": "allocating to a memory pool",
    "_cuda_releasePool": "memory pools",
    "_cuda_CUDAAllocator": "pluggable CUDA allocators",
    # Stock compiles jiterator kernels with NVRTC at run time; torch's own operations
    # run natively on the CUDA key instead.
    "_cuda_jiterator_compile_and_launch_kernel": "torch.cuda.jiterator (NVRTC)",
}


def _unsupported(name: str, feature: str) -> type:
    def fail(*args: object, **kwargs: object) -> None:
        raise RuntimeError(f"torch_cuda does not support {feature} yet (torch._C.{name})")

    return type(
        name, (), {"__new__": fail, "__init__": fail, "__doc__": f"Unsupported: {feature}."}
    )


def _nest(flat: dict[str, int]) -> dict[str, Any]:
    nested: dict[str, Any] = {}
    for key, value in flat.items():
        node = nested
        parts = key.split(".")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = value
    return nested


def build(torch_C: ModuleType, C: ModuleType) -> dict[str, Any]:
    """The names, made over torch._C's Stream/Event bases and the _CUDAC module C."""
    # Imported here: this module imports no torch (the coverage tool reads it without).
    from torch_cuda import _comm

    state: dict[str, Any] = {"fraction": {}, "sync_debug_mode": 0, "cudnn_benchmark_limit": 10}
    names: dict[str, Any] = dict(_comm.NAMES)

    def export(fn: Callable) -> Callable:
        names[fn.__name__] = fn
        return fn

    def current() -> int:
        return int(C._current_device())

    class _CudaDeviceProperties:
        """Properties of a CUDA device (torch.cuda.get_device_properties)."""

        def __init__(self, props: dict[str, Any], index: int) -> None:
            self.name = props["name"]
            self.major = props["major"]
            self.minor = props["minor"]
            self.total_memory = props["total_memory"]
            self.multi_processor_count = props["multi_processor_count"]
            self.is_integrated = 0
            self.is_multi_gpu_board = 0
            self.warp_size = 32
            self.max_threads_per_multi_processor = 2048
            self.max_threads_per_block = 1024
            self.regs_per_multiprocessor = 65536
            self.shared_memory_per_block = 49152
            self.shared_memory_per_block_optin = 49152
            self.shared_memory_per_multiprocessor = 65536
            self.L2_cache_size = 0
            self.uuid = f"00000000-0000-0000-0000-{index:012d}"
            self.pci_bus_id = self.pci_device_id = self.pci_domain_id = index
            self.gcnArchName = "NA"

        def __repr__(self) -> str:
            return (
                f"_CudaDeviceProperties(name='{self.name}', major={self.major}, "
                f"minor={self.minor}, total_memory={self.total_memory // (1024 * 1024)}MB, "
                f"multi_processor_count={self.multi_processor_count})"
            )

    names["_CudaDeviceProperties"] = _CudaDeviceProperties

    def _get_device_properties(device: int) -> _CudaDeviceProperties:
        props = dict(C._get_device_properties(int(device)))
        if C.variant == "simulated" and C.built_archs:
            # The simulated device runs every kernel the build has: it reports the newest
            # built architecture, so torch.cuda's capability checks pass as on that GPU.
            newest = max(int(arch[3:]) for arch in C.built_archs)
            props["major"], props["minor"] = divmod(newest, 10)
        return _CudaDeviceProperties(props, int(device))

    @export
    def _cuda_getDeviceCount() -> int:
        return int(C._device_count())

    @export
    def _cuda_init() -> None:
        import torch

        C._init()
        torch.cuda.default_generators = tuple(
            C._default_generator(i) for i in range(C._device_count())
        )
        torch.cuda._get_device_properties = _get_device_properties
        torch.cuda.has_half = True

    names["_cuda_isInBadFork"] = C._is_in_bad_fork
    names["_cuda_getDevice"] = current

    @export
    def _cuda_setDevice(device: int) -> None:
        C._set_device(int(device))

    @export
    def _cuda_exchangeDevice(device: int) -> int:
        return int(C._exchange_device(int(device)))

    @export
    def _cuda_maybeExchangeDevice(device: int) -> int:
        if not C._is_initialized():
            return -1
        return int(C._exchange_device(int(device)))

    @export
    def _cuda_getCurrentStream(device: int) -> tuple[int, int, int]:
        return tuple(C._current_stream(int(device)))

    @export
    def _cuda_getDefaultStream(device: int) -> tuple[int, int, int]:
        return tuple(C._default_stream(int(device)))

    @export
    def _cuda_setStream(stream_id: int = 0, device_index: int = 0, device_type: int = 0) -> None:
        C._set_stream(stream_id, device_index, device_type)
        C._set_device(device_index)  # as THCPModule_setStream_wrap

    @export
    def _cuda_getCurrentRawStream(device: int) -> int:
        return int(C._current_raw_stream(int(device)))

    @export
    def _cuda_synchronize() -> None:
        C._synchronize(-1)

    @export
    def _cuda_memoryStats(device: int) -> dict[str, Any]:
        return _nest(dict(C._memory_stats(int(device))))

    @export
    def _cuda_resetPeakMemoryStats(device: int) -> None:
        C._reset_peak_memory_stats(int(device))

    @export
    def _cuda_resetAccumulatedMemoryStats(device: int) -> None:
        C._reset_accumulated_memory_stats(int(device))

    @export
    def _cuda_hostMemoryStats() -> dict[str, Any]:
        return dict(C._host_memory_stats())

    @export
    def _cuda_resetPeakHostMemoryStats() -> None:
        C._reset_peak_host_memory_stats()

    @export
    def _cuda_resetAccumulatedHostMemoryStats() -> None:
        C._reset_accumulated_host_memory_stats()

    @export
    def _cuda_emptyCache() -> None:
        C._empty_cache()

    @export
    def _cuda_cudaCachingAllocator_raw_alloc(size: int, cuda_stream: int) -> int:
        return int(C._raw_alloc(int(size), int(cuda_stream)))

    @export
    def _cuda_cudaCachingAllocator_raw_delete(ptr: int) -> None:
        C._raw_delete(int(ptr))

    @export
    def _cuda_setMemoryMetadata(metadata: str) -> None:
        C._set_memory_metadata(str(metadata))

    @export
    def _cuda_getMemoryMetadata() -> str:
        return str(C._get_memory_metadata())

    @export
    def _cuda_memorySnapshot(mempool_id: object = None) -> dict[str, Any]:
        # mempool_id: None, or (pool id, pool id, include_traces) from memory_snapshot().
        include_traces = not isinstance(mempool_id, tuple) or bool(mempool_id[2])
        devices = range(C._device_count())
        segments = list(C._memory_snapshot())  # records "snapshot" in the traces
        return {
            "segments": segments,
            "device_traces": [list(C._memory_trace(d)) if include_traces else [] for d in devices],
            "allocator_settings": {},
        }

    def refuse_unsupported_history(compile_context: bool, global_record_annotations: bool) -> None:
        if compile_context or global_record_annotations:
            raise RuntimeError(
                "torch_cuda's memory history records Python stacks only: pass "
                "compile_context=False and global_record_annotations=False"
            )

    @export
    def _cuda_record_memory_history(
        enabled: str | None,
        context: str | None,
        stacks: str,
        max_entries: int,
        clear_history: bool = False,
        compile_context: bool = False,
        global_record_annotations: bool = False,
        skip_actions: list[str] | None = None,
    ) -> None:
        refuse_unsupported_history(compile_context, global_record_annotations)
        C._record_memory_history(
            enabled, context, stacks, max_entries, clear_history, list(skip_actions or [])
        )

    @export
    def _cuda_record_memory_history_legacy(
        enabled: bool,
        record_context: bool = True,
        trace_alloc_max_entries: int = 1,
        trace_alloc_record_context: bool = False,
        record_context_cpp: bool = False,
        clear_history: bool = False,
        compile_context: bool = False,
        global_record_annotations: bool = False,
        skip_actions: list[str] | None = None,
    ) -> None:
        # As stock: the trace holds at least one entry; record_context keeps the blocks'
        # stacks, trace_alloc_record_context the trace's too.
        refuse_unsupported_history(compile_context, global_record_annotations)
        if not enabled:
            C._record_memory_history(None, None, "python", 1, clear_history, [])
            return
        context = None
        if record_context:
            context = "alloc" if trace_alloc_record_context else "state"
        stacks = "all" if record_context_cpp else "python"
        C._record_memory_history(
            "all",
            context,
            stacks,
            max(1, int(trace_alloc_max_entries)),
            clear_history,
            list(skip_actions or []),
        )

    @export
    def _cuda_allocationTraceback(data_ptr: int) -> list[dict[str, Any]] | None:
        return C._allocation_traceback(int(data_ptr))

    @export
    def _cuda_getMemoryFraction(device: int) -> float:
        return state["fraction"].get(int(device), 1.0)

    @export
    def _cuda_setMemoryFraction(fraction: float, device: int) -> None:
        C._set_memory_fraction(float(fraction), int(device))
        state["fraction"][int(device)] = float(fraction)

    @export
    def _cuda_canDeviceAccessPeer(device: int, peer_device: int) -> bool:
        count = C._device_count()
        return 0 <= device < count and 0 <= peer_device < count

    @export
    def _cuda_getArchFlags() -> str | None:
        return " ".join(C.built_archs) or None

    @export
    def _cuda_get_sync_debug_mode() -> int:
        return state["sync_debug_mode"]

    @export
    def _cuda_set_sync_debug_mode(mode: int) -> None:
        state["sync_debug_mode"] = int(mode)

    @export
    def _cuda_getCompiledVersion() -> int:
        return int(C.cudart_version)

    @export
    def _cuda_isCurrentStreamCapturing() -> bool:
        return False

    @export
    def _cuda_isHistoryEnabled() -> bool:
        return bool(C._is_history_enabled())

    @export
    def _cuda_getAllocatorBackend() -> str:
        return "native"

    @export
    def _cuda_cudaCachingAllocator_is_enabled() -> bool:
        return bool(C._caching_allocator_is_enabled())

    @export
    def _cuda_cudaCachingAllocator_enable(enabled: bool) -> None:
        C._caching_allocator_enable(bool(enabled))

    @export
    def _cuda_clearCublasWorkspaces() -> None:
        return None

    @export
    def _cuda_get_cudnn_benchmark_limit() -> int:
        return state["cudnn_benchmark_limit"]

    @export
    def _cuda_set_cudnn_benchmark_limit(limit: int) -> None:
        state["cudnn_benchmark_limit"] = int(limit)

    @export
    def _cuda_getStreamFromExternal(data_ptr: int, device: int | None) -> tuple[int, int, int]:
        return tuple(C._external_stream(int(data_ptr), current() if device is None else device))

    @export
    def _cuda_ipc_collect() -> None:
        return None

    if hasattr(C, "_sleep"):

        @export
        def _cuda_sleep(cycles: int) -> None:
            C._sleep(cycles / 2_000_000)  # contract: ~2e6 cycles per millisecond

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
                    int(stream_ptr), current()
                )
            elif stream_id == 0 and device_index == 0 and device_type == 0:
                import torch

                device = torch.device("cuda", current())
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
                return _cuda_getCurrentRawStream(self.device_index)

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
                device=torch.device("cuda", current()),
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

    for name, feature in STUBS.items():
        names[name] = _unsupported(name, feature)
    if not hasattr(torch_C, "_MemPool"):
        names["_MemPool"] = _unsupported("_MemPool", "memory pools")

    names["_CudaStreamBase"] = _CudaStreamBase
    names["_CudaEventBase"] = _CudaEventBase

    class _CudaError(int):
        success = 0

    names["_cudart"] = types.SimpleNamespace(
        __name__="torch_cuda._cudart",
        cudaError=_CudaError,
        cudaGetErrorString=lambda code: "no error" if int(code) == 0 else f"CUDA error {int(code)}",
        cudaMemGetInfo=lambda device: tuple(C._mem_get_info(int(device))),
        cudaProfilerStart=lambda: 0,
        cudaProfilerStop=lambda: 0,
    )
    for name, value in names.items():
        if callable(value) and getattr(value, "__module__", None) == __name__:
            value.__qualname__ = name
    return names
