"""torch._C's CUDA device, stream and build names (stock: torch/csrc/cuda/Module.cpp),
over _CUDAC's device functions."""

from __future__ import annotations

import types
from types import ModuleType
from typing import Any

from torch_cuda.torch_c.names import Names


def current_device(C: ModuleType) -> int:
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


def device_properties(C: ModuleType, device: int) -> _CudaDeviceProperties:
    props = dict(C._get_device_properties(int(device)))
    # The capability the C++ side's checks see too: the simulated device runs every kernel
    # the build has, so it reports the newest built architecture, as on that GPU.
    props["major"], props["minor"] = C._compute_capability(int(device))
    return _CudaDeviceProperties(props, int(device))


def _cudart(C: ModuleType) -> types.SimpleNamespace:
    class _CudaError(int):
        success = 0

    return types.SimpleNamespace(
        __name__="torch_cuda._cudart",
        cudaError=_CudaError,
        cudaGetErrorString=lambda code: "no error" if int(code) == 0 else f"CUDA error {int(code)}",
        cudaMemGetInfo=lambda device: tuple(C._mem_get_info(int(device))),
        cudaProfilerStart=lambda: 0,
        cudaProfilerStop=lambda: 0,
    )


def build(C: ModuleType) -> Names:
    names = Names()
    names["_CudaDeviceProperties"] = _CudaDeviceProperties
    names["_cudart"] = _cudart(C)
    names["_cuda_isInBadFork"] = C._is_in_bad_fork
    settings: dict[str, int] = {"sync_debug_mode": 0, "cudnn_benchmark_limit": 10}

    @names.export
    def _cuda_getDeviceCount() -> int:
        return int(C._device_count())

    @names.export
    def _cuda_init() -> None:
        import torch

        C._init()
        torch.cuda.default_generators = tuple(
            C._default_generator(i) for i in range(C._device_count())
        )
        torch.cuda._get_device_properties = lambda device: device_properties(C, device)
        torch.cuda.has_half = True

    @names.export
    def _cuda_getDevice() -> int:
        return current_device(C)

    @names.export
    def _cuda_setDevice(device: int) -> None:
        C._set_device(int(device))

    @names.export
    def _cuda_exchangeDevice(device: int) -> int:
        return int(C._exchange_device(int(device)))

    @names.export
    def _cuda_maybeExchangeDevice(device: int) -> int:
        if not C._is_initialized():
            return -1
        return int(C._exchange_device(int(device)))

    @names.export
    def _cuda_getCurrentStream(device: int) -> tuple[int, int, int]:
        return tuple(C._current_stream(int(device)))

    @names.export
    def _cuda_getDefaultStream(device: int) -> tuple[int, int, int]:
        return tuple(C._default_stream(int(device)))

    @names.export
    def _cuda_setStream(stream_id: int = 0, device_index: int = 0, device_type: int = 0) -> None:
        C._set_stream(stream_id, device_index, device_type)
        C._set_device(device_index)  # as THCPModule_setStream_wrap

    @names.export
    def _cuda_getCurrentRawStream(device: int) -> int:
        return int(C._current_raw_stream(int(device)))

    @names.export
    def _cuda_getStreamFromExternal(data_ptr: int, device: int | None) -> tuple[int, int, int]:
        index = current_device(C) if device is None else device
        return tuple(C._external_stream(int(data_ptr), index))

    @names.export
    def _cuda_synchronize() -> None:
        C._synchronize(-1)

    @names.export
    def _cuda_canDeviceAccessPeer(device: int, peer_device: int) -> bool:
        count = C._device_count()
        return 0 <= device < count and 0 <= peer_device < count

    @names.export
    def _cuda_getArchFlags() -> str | None:
        return " ".join(C.built_archs) or None

    @names.export
    def _cuda_getCompiledVersion() -> int:
        return int(C.cudart_version)

    @names.export
    def _cuda_get_sync_debug_mode() -> int:
        return settings["sync_debug_mode"]

    @names.export
    def _cuda_set_sync_debug_mode(mode: int) -> None:
        settings["sync_debug_mode"] = int(mode)

    @names.export
    def _cuda_get_cudnn_benchmark_limit() -> int:
        return settings["cudnn_benchmark_limit"]

    @names.export
    def _cuda_set_cudnn_benchmark_limit(limit: int) -> None:
        settings["cudnn_benchmark_limit"] = int(limit)

    @names.export
    def _cuda_ipc_collect() -> None:
        C._ipc_collect()

    if hasattr(C, "_spin"):  # the real variant: a kernel that spins on the GPU
        names["_cuda_sleep"] = C._spin
    elif hasattr(C, "_sleep"):  # the simulated one: a timed work item

        @names.export
        def _cuda_sleep(cycles: int) -> None:
            C._sleep(cycles / 2_000_000)  # contract: ~2e6 cycles per millisecond

    return names
