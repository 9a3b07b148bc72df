"""What torch_cuda provides of the torch._C names a CUDA build has, said without importing
torch: tools/cuda_names_coverage.py prints it against the probe's list of 93, and
tests check every name claimed here is set on torch._C.
"""

from __future__ import annotations

# name -> what provides it (for the coverage table).
PROVIDED: dict[str, str] = {
    "_cuda_getDeviceCount": "_CUDAC._device_count (runtime device count, 0 without devices)",
    "_nvtx": "_CUDAC._nvtx (NVTX3: ranges, marks, device ranges on a stream)",
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
        "_CUDAC._memory_snapshot and _memory_trace per device as {'segments', 'device_traces'}, "
        "a pool's segments only when given one"
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
    "_cuda_isCurrentStreamCapturing": "_CUDAC._is_current_stream_capturing (runtime capture id)",
    "_CUDAGraph": "subclass of _CUDAC._Graph (torch_core's DeviceGraph: capture, private pool)",
    "_graph_pool_handle": "_CUDAC._graph_pool_handle (a new private pool id)",
    "_cuda_CUDAAllocator": (
        "_CUDAC._Allocator (a pluggable allocator's functions, or the caching one)"
    ),
    "_cuda_customAllocator": "_CUDAC._custom_allocator (alloc/free functions by address)",
    "_cuda_changeCurrentAllocator": (
        "_CUDAC._change_current_allocator (before first use; uncached, no statistics)"
    ),
    "_cuda_getAllocator": "_CUDAC._get_allocator",
    "_cuda_checkPoolLiveAllocations": "_CUDAC._pool_live_allocations compared as a set",
    "_cuda_cudaHostAllocator": "_CUDAC._host_allocator_address (the pinned host allocator)",
    "_cuda_beginAllocateToPool": "_CUDAC._begin_allocate_to_pool (every stream to the pool)",
    "_cuda_beginAllocateCurrentThreadToPool": (
        "_CUDAC._begin_allocate_current_thread_to_pool (this thread's allocations)"
    ),
    "_cuda_endAllocateToPool": "_CUDAC._end_allocate_to_pool",
    "_cuda_releasePool": "_CUDAC._release_pool (its memory goes at the next empty_cache)",
    "_cuda_isHistoryEnabled": "_CUDAC._is_history_enabled",
    "_cuda_getAllocatorBackend": "'native' (torch_core's caching allocator)",
    "_cuda_cudaCachingAllocator_is_enabled": "_CUDAC._caching_allocator_is_enabled",
    "_cuda_cudaCachingAllocator_enable": (
        "_CUDAC._caching_allocator_enable (off: blocks straight from the runtime and back)"
    ),
    "_cuda_clearCublasWorkspaces": "_CUDAC._clear_blas_workspaces (back to the caching allocator)",
    "_cuda_getCublasWorkspaceSize": (
        "_CUDAC._cublas_workspace_size (set, CUBLAS_WORKSPACE_CONFIG's or ATen's default)"
    ),
    "_cuda_setCublasWorkspaceSize": "_CUDAC._set_cublas_workspace_size (later workspaces)",
    "_cuda_resetCublasWorkspaceSize": "_CUDAC._reset_cublas_workspace_size",
    "_cuda_getCublasLtWorkspaceSize": (
        "_CUDAC._cublaslt_workspace_size (ATen's rules; the addmm epilogues' workspace)"
    ),
    "_cuda_setCublasLtWorkspaceSize": "_CUDAC._set_cublaslt_workspace_size",
    "_cuda_resetCublasLtWorkspaceSize": "_CUDAC._reset_cublaslt_workspace_size",
    "_cuda_getCurrentBlasHandle": (
        "_CUDAC._current_blas_handle (cublasHandle_t; the simulated variant refuses: no cuBLAS)"
    ),
    "_cuda_getCurrentSolverHandle": (
        "_CUDAC._current_solver_handle (cusolverDnHandle_t; the simulated variant refuses)"
    ),
    "_cuda_get_cudnn_benchmark_limit": "a stored limit (cuDNN's v7 Find times every algorithm)",
    "_cuda_set_cudnn_benchmark_limit": "stores the limit",
    "_cuda_sleep": "_CUDAC._spin (a spin kernel), simulated variant: _CUDAC._sleep",
    "_cuda_getStreamFromExternal": "_CUDAC._external_stream (a stream made outside torch)",
    # Outside the 93 (torch.nn.parallel.comm reads them, not torch/cuda): stock's comm.cpp.
    "_broadcast": "torch_cuda.torch_c.comm.broadcast (device-to-device copies)",
    "_broadcast_out": "torch_cuda.torch_c.comm.broadcast_out",
    "_broadcast_coalesced": "torch_cuda.torch_c.comm.broadcast_coalesced (flat buffers per chunk)",
    "_scatter": "torch_cuda.torch_c.comm.scatter (on the given streams)",
    "_scatter_out": "torch_cuda.torch_c.comm.scatter_out",
    "_gather": "torch_cuda.torch_c.comm.gather",
    "_gather_out": "torch_cuda.torch_c.comm.gather_out",
    "_cuda_ipc_collect": "_CUDAC._ipc_collect (frees what consumers let go)",
    # Outside the 93 too: torch.cuda.graph's __enter__ calls it; torch.cuda.MemPool's base.
    "_host_emptyCache": "_CUDAC._empty_host_cache (the pinned host allocator's cache)",
    "_MemPool": "_CUDAC._MemPool (a private pool of the caching allocator, own allocator optional)",
    "_CudaStreamBase": "Python subclass of torch._C.Stream",
    "_CudaEventBase": "subclass of torch._C.Event; elapsed_time via _CUDAC._event_elapsed_time",
    "_CudaDeviceProperties": "Python class over _CUDAC._get_device_properties",
    "_cudart": "namespace: cudaMemGetInfo (_CUDAC._mem_get_info), cudaGetErrorString, profiler",
    **{
        name: "_CUDAC._tunableop_* (TunableOp: GEMMs tuned and logged as stock's, same files)"
        for name in (
            "_cuda_tunableop_enable",
            "_cuda_tunableop_is_enabled",
            "_cuda_tunableop_tuning_enable",
            "_cuda_tunableop_tuning_is_enabled",
            "_cuda_record_untuned_enable",
            "_cuda_record_untuned_is_enabled",
            "_cuda_tunableop_set_max_tuning_duration",
            "_cuda_tunableop_get_max_tuning_duration",
            "_cuda_tunableop_set_max_tuning_iterations",
            "_cuda_tunableop_get_max_tuning_iterations",
            "_cuda_tunableop_set_filename",
            "_cuda_tunableop_get_filename",
            "_cuda_tunableop_get_results",
            "_cuda_tunableop_get_validators",
            "_cuda_tunableop_read_file",
            "_cuda_tunableop_set_rotating_buffer_size",
            "_cuda_tunableop_get_rotating_buffer_size",
            "_cuda_tunableop_set_numerical_check_tolerances",
        )
    },
}

# Names torch/cuda imports unconditionally once _CudaStreamBase exists (graphs.py,
# memory.py) for features torch_cuda does not have yet: present so the import works,
# raising a clear error when used. name -> the feature.
STUBS: dict[str, str] = {
    # Stock compiles jiterator kernels with NVRTC at run time; torch's own operations
    # run natively on the CUDA key instead.
    "_cuda_jiterator_compile_and_launch_kernel": "torch.cuda.jiterator (NVRTC)",
}
