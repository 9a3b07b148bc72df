"""Named source groups, as PyTorch's build_variables.bzl: the one list of what each
library is made of. BUILD files turn the groups into targets with explicit deps."""

# torch_core: the device-agnostic layer (depends on @torch only).
torch_core_runtime_headers = [
    "csrc/runtime/current_device_scope.h",
    "csrc/runtime/device_runtime.h",
]

# The simulated runtime: the interface over host memory and host threads (torch-free).
torch_core_simulated_runtime_headers = [
    "csrc/runtime/simulated_config.h",
    "csrc/runtime/simulated_runtime.h",
]

# Sources, with the headers private to them (stream, event and memory internals).
torch_core_simulated_runtime_sources = [
    "csrc/runtime/pointer_text.h",
    "csrc/runtime/simulated_config.cpp",
    "csrc/runtime/simulated_event.cpp",
    "csrc/runtime/simulated_event.h",
    "csrc/runtime/simulated_memory.cpp",
    "csrc/runtime/simulated_memory.h",
    "csrc/runtime/simulated_runtime.cpp",
    "csrc/runtime/simulated_runtime_memory.cpp",
    "csrc/runtime/simulated_stream.cpp",
    "csrc/runtime/simulated_stream.h",
]

# The caching device allocator over the runtime interface (torch-free): public headers.
torch_core_allocator_headers = [
    "csrc/runtime/allocator_config.h",
    "csrc/runtime/allocator_errors.h",
    "csrc/runtime/allocator_history.h",
    "csrc/runtime/allocator_sizes.h",
    "csrc/runtime/allocator_snapshot.h",
    "csrc/runtime/allocator_stats.h",
    "csrc/runtime/caching_allocator.h",
]

# Sources, with the headers private to them (blocks, pools, the per-device cache).
torch_core_allocator_sources = [
    "csrc/runtime/allocator_config.cpp",
    "csrc/runtime/allocator_history.cpp",
    "csrc/runtime/allocator_sizes.cpp",
    "csrc/runtime/allocator_stats.cpp",
    "csrc/runtime/caching_allocator.cpp",
    "csrc/runtime/caching_allocator_block.h",
    "csrc/runtime/caching_allocator_device.cpp",
    "csrc/runtime/caching_allocator_device.h",
    "csrc/runtime/caching_allocator_device_stats.cpp",
]

# The caching pinned-host allocator over the runtime interface (torch-free).
torch_core_host_allocator_headers = [
    "csrc/runtime/host_pinned_allocator.h",
]

torch_core_host_allocator_sources = [
    "csrc/runtime/host_pinned_allocator.cpp",
]

# torch_core device layer: the c10/ATen face of a backend over its runtime (stream registry,
# device guard, caching device allocator adapter, pinned host allocator, Philox generator,
# PrivateUse1 hooks), generic over the device type.
torch_core_device_headers = [
    "csrc/device/backend.h",
    "csrc/device/device_allocator.h",
    "csrc/device/device_guard.h",
    "csrc/device/gpu_trace.h",
    "csrc/device/host_allocator.h",
    "csrc/device/invalid_device.h",
    "csrc/device/lazy_runtime.h",
    "csrc/device/philox_generator.h",
    "csrc/device/privateuse1_hooks.h",
    "csrc/device/register_backend.h",
    "csrc/device/runtime_call.h",
    "csrc/device/storage_resize.h",
    "csrc/device/stream_registry.h",
]

torch_core_device_sources = [
    "csrc/device/backend.cpp",
    "csrc/device/device_allocator.cpp",
    "csrc/device/device_guard.cpp",
    "csrc/device/host_allocator.cpp",
    "csrc/device/invalid_device.cpp",
    "csrc/device/lazy_runtime.cpp",
    "csrc/device/philox_generator.cpp",
    "csrc/device/privateuse1_hooks.cpp",
    "csrc/device/register_backend.cpp",
    "csrc/device/storage_resize.cpp",
    "csrc/device/stream_registry.cpp",
]

# torch_core device layer, Python face: the functions every device module is built from.
torch_core_device_python_headers = [
    "csrc/device/memory_history_bindings.h",
    "csrc/device/python_bindings.h",
]

torch_core_device_python_sources = [
    "csrc/device/memory_history_bindings.cpp",
    "csrc/device/python_bindings.cpp",
]

# A simulated device on any device type: the SimulatedRuntime from the environment, the
# launch that queues host work on its streams, the kernels over that launch.
torch_core_simulated_device_headers = [
    "csrc/simulated/simulated_device.h",
]

torch_core_simulated_device_sources = [
    "csrc/simulated/simulated_device.cpp",
]

# Its Python face: _sleep and _config.
torch_core_simulated_device_python_headers = [
    "csrc/simulated/simulated_device_bindings.h",
]

torch_core_simulated_device_python_sources = [
    "csrc/simulated/simulated_device_bindings.cpp",
]

# torch_core Python package: the device-module builder.
torch_core_python_sources = [
    "python/torch_core/__init__.py",
    "python/torch_core/device_module/__init__.py",
    "python/torch_core/device_module/context.py",
    "python/torch_core/device_module/devices.py",
    "python/torch_core/device_module/fallback.py",
    "python/torch_core/device_module/lazy_init.py",
    "python/torch_core/device_module/memory.py",
    "python/torch_core/device_module/random_state.py",
    "python/torch_core/device_module/streams.py",
    "python/torch_core/gpu_trace.py",
    "python/torch_core/preload.py",
]

# torch_core kernel loop API, host side (torch-free, header-only).
torch_core_kernel_loop_headers = [
    "csrc/aten/host_device.h",
    "csrc/aten/kernel_loop.h",
]

# torch_core aten layer: the generic native ops every backend registers (memory, copies,
# views, scalars), the CPU fallback with its policy and counters, the device-kernel hooks.
torch_core_aten_headers = [
    "csrc/aten/cpu_fallback.h",
    "csrc/aten/device_kernels.h",
    "csrc/aten/native_ops.h",
    "csrc/aten/native_registration.h",
    "csrc/aten/tensor_loop.h",
]

torch_core_aten_sources = [
    "csrc/aten/copy_ops.cpp",
    "csrc/aten/cpu_fallback.cpp",
    "csrc/aten/device_kernels.cpp",
    "csrc/aten/memory_ops.cpp",
    "csrc/aten/native_registration.cpp",
    "csrc/aten/op_support.h",
    "csrc/aten/scalar_ops.cpp",
    "csrc/aten/view_ops.cpp",
]

# torch_core's kernel engine, device side: the operand description, the elementwise
# calls, their functors and the dispatch to a typed loop. Header-only and free of ATen,
# so a CUDA engine's .cu files include the same functors (TORCH_CORE_HOST_DEVICE).
torch_core_engine_functor_headers = [
    "csrc/aten/engine/activation_functors.h",
    "csrc/aten/engine/binary_functors.h",
    "csrc/aten/engine/binary_math_functors.h",
    "csrc/aten/engine/elementwise_call.h",
    "csrc/aten/engine/elementwise_dispatch.h",
    "csrc/aten/engine/elementwise_functors.h",
    "csrc/aten/engine/functor_types.h",
    "csrc/aten/engine/index_call.h",
    "csrc/aten/engine/index_loop.h",
    "csrc/aten/engine/loss_functors.h",
    "csrc/aten/engine/nn_activation_functors.h",
    "csrc/aten/engine/operand_loop.h",
    "csrc/aten/engine/pointwise_functors.h",
    "csrc/aten/engine/random_call.h",
    "csrc/aten/engine/random_dispatch.h",
    "csrc/aten/engine/random_functors.h",
    "csrc/aten/engine/reduce_call.h",
    "csrc/aten/engine/reduce_dispatch.h",
    "csrc/aten/engine/reduce_functors.h",
    "csrc/aten/engine/scan_call.h",
    "csrc/aten/engine/sort_call.h",
    "csrc/aten/engine/special_functors.h",
    "csrc/aten/engine/unary_functors.h",
]

torch_core_engine_functor_sources = [
    "csrc/aten/engine/op_names.cpp",
]

# torch_core's kernel engine, ATen side: the DispatchStub kernels that describe a
# TensorIterator and call the engine registered for its device type.
torch_core_engine_headers = [
    "csrc/aten/engine/iterator_loop.h",
    "csrc/aten/engine/kernel_engine.h",
    "csrc/aten/engine/stub_kernels.h",
    "csrc/aten/engine/stub_slot.h",
]

torch_core_engine_sources = [
    "csrc/aten/engine/activation_stub_kernels.cpp",
    "csrc/aten/engine/index_copy_stub_kernels.cpp",
    "csrc/aten/engine/index_put_accumulate.cpp",
    "csrc/aten/engine/isin_stub_kernel.cpp",
    "csrc/aten/engine/iterator_loop.cpp",
    "csrc/aten/engine/kernel_engine.cpp",
    "csrc/aten/engine/loss_stub_kernels.cpp",
    "csrc/aten/engine/math_stub_kernels.cpp",
    "csrc/aten/engine/random_stub_kernels.cpp",
    "csrc/aten/engine/scan_stub_kernels.cpp",
    "csrc/aten/engine/scatter_gather_stub_kernels.cpp",
    "csrc/aten/engine/sort_stub_kernels.cpp",
    "csrc/aten/engine/stub_kernels.cpp",
]

# Stock's CUDA kernels of operators that are not device-generic in ATen (softmax, gelu,
# dropout, nll_loss, layer_norm, batch_norm, max_pool2d, index_select, embedding backward,
# masked_fill_, cat, tril/triu, arange, the AMP scaler), defined device-generically over
# operators the kernel engine runs; registered with their CUDA metadata by the generated
# registrations.
torch_core_composite_headers = [
    "csrc/aten/composite/opmath.h",
    "csrc/aten/composite/resampling.h",
]

torch_core_composite_sources = [
    "csrc/aten/composite/activation.cpp",
    "csrc/aten/composite/amp.cpp",
    "csrc/aten/composite/assert_async.cpp",
    "csrc/aten/composite/avg_pooling.cpp",
    "csrc/aten/composite/binary_cross_entropy.cpp",
    "csrc/aten/composite/dot.cpp",
    "csrc/aten/composite/dropout.cpp",
    "csrc/aten/composite/equal.cpp",
    "csrc/aten/composite/factories.cpp",
    "csrc/aten/composite/fused_optimizers.cpp",
    "csrc/aten/composite/indexing.cpp",
    "csrc/aten/composite/loss.cpp",
    "csrc/aten/composite/max_unpool.cpp",
    "csrc/aten/composite/nll_loss2d.cpp",
    "csrc/aten/composite/nonzero.cpp",
    "csrc/aten/composite/normalization.cpp",
    "csrc/aten/composite/order_statistics.cpp",
    "csrc/aten/composite/padding.cpp",
    "csrc/aten/composite/pooling.cpp",
    "csrc/aten/composite/resampling.cpp",
    "csrc/aten/composite/shape.cpp",
    "csrc/aten/composite/softmax.cpp",
    "csrc/aten/composite/sorting.cpp",
    "csrc/aten/composite/upsample.cpp",
]

# The host engine: the kernel engine of simulated devices (host loops on stream workers).
torch_core_host_engine_headers = [
    "csrc/aten/engine/host_engine.h",
]

torch_core_host_engine_sources = [
    "csrc/aten/engine/host_engine.cpp",
]

# torch_core host-loop kernels: DeviceKernels (copy, fill) for a device whose memory the
# host addresses (torch_sim, torch_cuda's simulated variant).
torch_core_host_loop_kernels_headers = [
    "csrc/aten/host_loop_kernels.h",
]

torch_core_host_loop_kernels_sources = [
    "csrc/aten/host_loop_device_kernels.cpp",
]

# torch_cuda framework: the runtime over cudart (host C++, compiled by the C++ toolchain).
torch_cuda_framework_sources = [
    "csrc/framework/cuda_device_runtime.cpp",
    "csrc/framework/device_smoke.cpp",
]

torch_cuda_framework_headers = [
    "csrc/framework/cuda_check.h",
    "csrc/framework/cuda_device_runtime.h",
    "csrc/framework/device_smoke.h",
]

# torch_cuda kernels: device code (compiled by nvcc for every configured architecture).
# Paths from third_device/torch_cuda/csrc/aten, the package of the device code.
torch_cuda_kernel_sources = [
    "kernels/elementwise_add.cu",
]

torch_cuda_kernel_headers = [
    "kernels/elementwise_add.h",
]

# The CUDA engine: torch_core's elementwise functors as GPU kernels, one .cu per group of
# operations (device code), and the engine that torch_core's stub kernels call (host).
torch_cuda_engine_kernel_sources = [
    "engine/elementwise_activation.cu",
    "engine/elementwise_binary.cu",
    "engine/elementwise_binary_math.cu",
    "engine/elementwise_compare.cu",
    "engine/elementwise_loss.cu",
    "engine/elementwise_nn_activation.cu",
    "engine/elementwise_pointwise.cu",
    "engine/elementwise_polynomial.cu",
    "engine/elementwise_special.cu",
    "engine/elementwise_unary_math.cu",
    "engine/elementwise_unary_other.cu",
    "engine/index.cu",
    "engine/random.cu",
    "engine/scan.cu",
    "engine/sort.cu",
    "engine/reduce_arithmetic.cu",
    "engine/reduce_comparison.cu",
]

torch_cuda_engine_kernel_headers = [
    "engine/cuda_executor.cuh",
    "engine/cuda_kernels.h",
    "engine/cuda_reduce_executor.cuh",
    "loop_index.h",
]

torch_cuda_engine_sources = [
    "engine/cuda_engine.cpp",
]

torch_cuda_engine_headers = [
    "engine/cuda_engine.h",
]

# The plans of the matrix products (no CUDA header): what both variants' executors run.
torch_cuda_gemm_plan_sources = [
    "blas/gemm_plan.cpp",
]

torch_cuda_gemm_plan_headers = [
    "blas/gemm_plan.h",
]

# The cuBLAS executor: gemm, strided-batched gemm, gemv, handles, math modes.
torch_cuda_blas_sources = [
    "blas/cublas_handle.cpp",
    "blas/gemm.cpp",
]

torch_cuda_blas_headers = [
    "blas/cublas_check.h",
    "blas/cublas_handle.h",
    "blas/gemm.h",
]

# Linear algebra on the CUDA key (mm, addmm, bmm, baddbmm, mv, addmv): gemm plans handed
# to the variant's executor.
torch_cuda_blas_ops_sources = [
    "blas_ops.cpp",
]

# torch_cuda backend on the CUDA key, shared by the real and simulated variants: backend
# registration, CUDA hooks, operator registrations, and the variant interface.
torch_cuda_backend_headers = [
    "csrc/framework/cuda_backend.h",
    "csrc/framework/cuda_hooks.h",
    "csrc/framework/variant.h",
]

torch_cuda_backend_sources = [
    "csrc/framework/cuda_backend.cpp",
    "csrc/framework/cuda_hooks.cpp",
    "csrc/framework/native_registration.cpp",
]

# torch_python_cuda: the _CUDAC extension module's init, shared by both variants.
torch_python_cuda_sources = [
    "csrc/pybinding/cudac_module.cpp",
]

torch_python_cuda_headers = [
    "csrc/pybinding/variant_bindings.h",
]

# The torch_cuda Python package (RFC layout: backends/ and core/).
torch_cuda_python_sources = [
    "torch_cuda/__init__.py",
    "torch_cuda/_loader.py",
    "torch_cuda/backends/__init__.py",
    "torch_cuda/core/__init__.py",
    "torch_cuda/core/version.py",
    "torch_cuda/torch_c/__init__.py",
    "torch_cuda/torch_c/comm.py",
    "torch_cuda/torch_c/coverage.py",
    "torch_cuda/torch_c/device.py",
    "torch_cuda/torch_c/memory.py",
    "torch_cuda/torch_c/names.py",
    "torch_cuda/torch_c/stream_event.py",
    "torch_cuda/torch_c/unsupported.py",
    "torch_cuda/torch_patches/__init__.py",
    "torch_cuda/torch_patches/_pinned.py",
    "torch_cuda/torch_patches/cuda_storage.py",
    "torch_cuda/torch_patches/load_before_torch_c.py",
    "torch_cuda/torch_patches/raw_stream_for_dynamo.py",
    "torch_cuda/torch_patches/torch_c_names.py",
    "torch_cuda/torch_patches/version_cuda.py",
]

# The activation module a wheel puts at its top level, beside torch_cuda_activate.pth.
torch_cuda_activation_sources = [
    "_torch_cuda_activate.py",
]

# torch_sim: the PrivateUse1 reference backend on the simulated runtime.
torch_sim_headers = [
    "csrc/sim_backend.h",
]

torch_sim_sources = [
    "csrc/aten/registration.cpp",
    "csrc/sim_backend.cpp",
]

# torch_python_sim: the _SIMC extension module.
torch_python_sim_sources = [
    "csrc/python/sim_module.cpp",
]

# The torch_sim Python package.
torch_sim_python_sources = [
    "torch_sim/__init__.py",
]
