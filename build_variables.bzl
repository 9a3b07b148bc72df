"""Named source groups, as PyTorch's build_variables.bzl: the one list of what each
library is made of. Paths are from the repository root; every C++, CUDA and Python source
under torch_core/ and third_device/ is in exactly one group (//tests/audits:source_groups_test),
and each group is the sources of one target, which its BUILD file makes with in_package().
"""

def in_package(paths):
    """A group's paths relative to the package of the BUILD file that calls this.

    Args:
      paths: paths from the repository root, all inside the calling package.
    Returns:
      The paths as that package's srcs/hdrs name them.
    """
    prefix = native.package_name() + "/"
    relative = []
    for path in paths:
        if not path.startswith(prefix):
            fail("%s is not in package %s: list it in a group of that package" % (path, prefix))
        relative.append(path[len(prefix):])
    return relative

def source_files():
    """`:source_files`, the package's C++, CUDA and Python sources, which
    //tests/audits:source_groups_test checks against the groups. Every package under
    torch_core/ and third_device/ that has sources calls it."""
    native.filegroup(
        name = "source_files",
        srcs = native.glob(["**/*." + ext for ext in ["c", "cc", "cpp", "cu", "cuh", "h", "py"]]),
        visibility = ["//tests/audits:__pkg__"],
    )

# torch_core: the device-agnostic layer (depends on @torch only).
torch_core_runtime_headers = [
    "torch_core/csrc/runtime/current_device_scope.h",
    "torch_core/csrc/runtime/device_runtime.h",
    "torch_core/csrc/runtime/runtime_handles.h",
]

# The simulated runtime: the interface over host memory and host threads (torch-free).
torch_core_simulated_runtime_headers = [
    "torch_core/csrc/runtime/simulated_config.h",
    "torch_core/csrc/runtime/simulated_runtime.h",
]

# Sources, with the headers private to them (stream, event and memory internals).
torch_core_simulated_runtime_sources = [
    "torch_core/csrc/runtime/pointer_text.h",
    "torch_core/csrc/runtime/simulated_capture.cpp",
    "torch_core/csrc/runtime/simulated_capture.h",
    "torch_core/csrc/runtime/simulated_config.cpp",
    "torch_core/csrc/runtime/simulated_event.cpp",
    "torch_core/csrc/runtime/simulated_event.h",
    "torch_core/csrc/runtime/simulated_fault_guard.cpp",
    "torch_core/csrc/runtime/simulated_fault_guard.h",
    "torch_core/csrc/runtime/simulated_ipc.cpp",
    "torch_core/csrc/runtime/simulated_ipc.h",
    "torch_core/csrc/runtime/simulated_memory.cpp",
    "torch_core/csrc/runtime/simulated_memory.h",
    "torch_core/csrc/runtime/simulated_runtime.cpp",
    "torch_core/csrc/runtime/simulated_runtime_graphs.cpp",
    "torch_core/csrc/runtime/simulated_runtime_ipc.cpp",
    "torch_core/csrc/runtime/simulated_runtime_memory.cpp",
    "torch_core/csrc/runtime/simulated_runtime_vm.cpp",
    "torch_core/csrc/runtime/simulated_shared_heap.cpp",
    "torch_core/csrc/runtime/simulated_shared_heap.h",
    "torch_core/csrc/runtime/simulated_stream.cpp",
    "torch_core/csrc/runtime/simulated_stream.h",
    "torch_core/csrc/runtime/simulated_virtual_memory.cpp",
    "torch_core/csrc/runtime/simulated_virtual_memory.h",
]

# The caching device allocator over the runtime interface (torch-free): public headers.
torch_core_allocator_headers = [
    "torch_core/csrc/runtime/allocator_config.h",
    "torch_core/csrc/runtime/allocator_errors.h",
    "torch_core/csrc/runtime/allocator_history.h",
    "torch_core/csrc/runtime/allocator_sizes.h",
    "torch_core/csrc/runtime/allocator_snapshot.h",
    "torch_core/csrc/runtime/allocator_stats.h",
    "torch_core/csrc/runtime/caching_allocator.h",
    "torch_core/csrc/runtime/segment_source.h",
]

# Sources, with the headers private to them (blocks, pools, the per-device cache).
torch_core_allocator_sources = [
    "torch_core/csrc/runtime/allocator_config.cpp",
    "torch_core/csrc/runtime/allocator_history.cpp",
    "torch_core/csrc/runtime/allocator_sizes.cpp",
    "torch_core/csrc/runtime/allocator_stats.cpp",
    "torch_core/csrc/runtime/caching_allocator.cpp",
    "torch_core/csrc/runtime/caching_allocator_block.h",
    "torch_core/csrc/runtime/caching_allocator_device.cpp",
    "torch_core/csrc/runtime/caching_allocator_device.h",
    "torch_core/csrc/runtime/caching_allocator_device_expandable.cpp",
    "torch_core/csrc/runtime/caching_allocator_device_pools.cpp",
    "torch_core/csrc/runtime/caching_allocator_device_release.cpp",
    "torch_core/csrc/runtime/caching_allocator_device_stats.cpp",
]

# The caching pinned-host allocator over the runtime interface (torch-free).
torch_core_host_allocator_headers = [
    "torch_core/csrc/runtime/host_pinned_allocator.h",
]

torch_core_host_allocator_sources = [
    "torch_core/csrc/runtime/host_pinned_allocator.cpp",
]

# torch_core device layer: the c10/ATen face of a backend over its runtime (stream registry,
# device guard, caching device allocator adapter, pinned host allocator, Philox generator,
# PrivateUse1 hooks, profiler stubs), generic over the device type.
torch_core_device_headers = [
    "torch_core/csrc/device/accelerator_errors.h",
    "torch_core/csrc/device/allocator_settings.h",
    "torch_core/csrc/device/backend.h",
    "torch_core/csrc/device/backend_hooks.h",
    "torch_core/csrc/device/cpu_fallback_state.h",
    "torch_core/csrc/device/deleter_table.h",
    "torch_core/csrc/device/device_allocator.h",
    "torch_core/csrc/device/device_graph.h",
    "torch_core/csrc/device/device_guard.h",
    "torch_core/csrc/device/gpu_trace.h",
    "torch_core/csrc/device/host_allocator.h",
    "torch_core/csrc/device/ipc_event.h",
    "torch_core/csrc/device/ipc_sharing.h",
    "torch_core/csrc/device/lazy_runtime.h",
    "torch_core/csrc/device/philox_generator.h",
    "torch_core/csrc/device/privateuse1_hooks.h",
    "torch_core/csrc/device/profiler_stubs.h",
    "torch_core/csrc/device/register_backend.h",
    "torch_core/csrc/device/runtime_call.h",
    "torch_core/csrc/device/storage_resize.h",
    "torch_core/csrc/device/stream_registry.h",
]

torch_core_device_sources = [
    "torch_core/csrc/device/accelerator_errors.cpp",
    "torch_core/csrc/device/allocator_settings.cpp",
    "torch_core/csrc/device/backend.cpp",
    "torch_core/csrc/device/device_allocator.cpp",
    "torch_core/csrc/device/device_graph.cpp",
    "torch_core/csrc/device/device_guard.cpp",
    "torch_core/csrc/device/host_allocator.cpp",
    "torch_core/csrc/device/ipc_event.cpp",
    "torch_core/csrc/device/ipc_sharing.cpp",
    "torch_core/csrc/device/lazy_runtime.cpp",
    "torch_core/csrc/device/philox_generator.cpp",
    "torch_core/csrc/device/privateuse1_hooks.cpp",
    "torch_core/csrc/device/profiler_stubs.cpp",
    "torch_core/csrc/device/register_backend.cpp",
    "torch_core/csrc/device/storage_resize.cpp",
    "torch_core/csrc/device/stream_registry.cpp",
]

# torch_core device layer, Python face: the functions every device module is built from.
torch_core_device_python_headers = [
    "torch_core/csrc/device/graph_bindings.h",
    "torch_core/csrc/device/ipc_bindings.h",
    "torch_core/csrc/device/memory_history_bindings.h",
    "torch_core/csrc/device/pool_bindings.h",
    "torch_core/csrc/device/python_bindings.h",
]

torch_core_device_python_sources = [
    "torch_core/csrc/device/graph_bindings.cpp",
    "torch_core/csrc/device/ipc_bindings.cpp",
    "torch_core/csrc/device/memory_history_bindings.cpp",
    "torch_core/csrc/device/pool_bindings.cpp",
    "torch_core/csrc/device/python_bindings.cpp",
]

# A communicator's interface (NCCL's calls on raw buffers and streams): torch-free, what a
# backend's communicator implements.
torch_core_distributed_communicator_headers = [
    "torch_core/csrc/distributed/communicator.h",
]

torch_core_distributed_communicator_sources = [
    "torch_core/csrc/distributed/communicator.cpp",
]

# torch.distributed on a backend's device: the backend that stages allreduce and
# reduce_scatter of a host-only c10d backend (gloo) through pinned host memory, its work,
# and DDP's timer for the device.
torch_core_distributed_headers = [
    "torch_core/csrc/distributed/collective_arguments.h",
    "torch_core/csrc/distributed/collective_backend.h",
    "torch_core/csrc/distributed/collective_work.h",
    "torch_core/csrc/distributed/device_timer.h",
    "torch_core/csrc/distributed/host_staged_work.h",
    "torch_core/csrc/distributed/host_staging_backend.h",
]

torch_core_distributed_sources = [
    "torch_core/csrc/distributed/collective_arguments.cpp",
    "torch_core/csrc/distributed/collective_backend.cpp",
    "torch_core/csrc/distributed/collective_calls.cpp",
    "torch_core/csrc/distributed/collective_work.cpp",
    "torch_core/csrc/distributed/device_timer.cpp",
    "torch_core/csrc/distributed/host_staged_work.cpp",
    "torch_core/csrc/distributed/host_staging_backend.cpp",
]

# Its Python face: _host_staging_backend and the timer's registration.
torch_core_distributed_python_headers = [
    "torch_core/csrc/distributed/collective_bindings.h",
    "torch_core/csrc/distributed/distributed_bindings.h",
]

torch_core_distributed_python_sources = [
    "torch_core/csrc/distributed/collective_bindings.cpp",
    "torch_core/csrc/distributed/distributed_bindings.cpp",
]

# A simulated device on any device type: the SimulatedRuntime from the environment, the
# launch that queues host work on its streams, the kernels over that launch.
torch_core_simulated_device_headers = [
    "torch_core/csrc/simulated/simulated_device.h",
]

torch_core_simulated_device_sources = [
    "torch_core/csrc/simulated/simulated_device.cpp",
]

# Its Python face: _sleep and _config.
# The simulated devices' communicator: NCCL's calls on the simulated streams, the bytes
# through gloo over loopback.
torch_core_simulated_communicator_headers = [
    "torch_core/csrc/simulated/simulated_communicator.h",
]

torch_core_simulated_communicator_sources = [
    "torch_core/csrc/simulated/simulated_communicator.cpp",
]

torch_core_simulated_device_python_headers = [
    "torch_core/csrc/simulated/simulated_device_bindings.h",
]

torch_core_simulated_device_python_sources = [
    "torch_core/csrc/simulated/simulated_device_bindings.cpp",
]

# torch_core Python package: the device-module builder.
torch_core_python_sources = [
    "torch_core/python/torch_core/__init__.py",
    "torch_core/python/torch_core/cpp_extension.py",
    "torch_core/python/torch_core/device_module/__init__.py",
    "torch_core/python/torch_core/device_module/context.py",
    "torch_core/python/torch_core/device_module/devices.py",
    "torch_core/python/torch_core/device_module/fallback.py",
    "torch_core/python/torch_core/device_module/lazy_init.py",
    "torch_core/python/torch_core/device_module/memory.py",
    "torch_core/python/torch_core/device_module/random_state.py",
    "torch_core/python/torch_core/device_module/streams.py",
    "torch_core/python/torch_core/exit_collection.py",
    "torch_core/python/torch_core/gpu_trace.py",
    "torch_core/python/torch_core/preload.py",
    "torch_core/python/torch_core/setuptools_build.py",
]

# The registration generator (the pinned wheel's torchgen over native_functions.yaml).
torch_core_codegen_sources = [
    "torch_core/codegen/gen_registrations.py",
]

# The structured operators' list for the CPU fallback (torch_core/csrc/aten).
torch_core_codegen_structured_sources = [
    "torch_core/codegen/gen_structured_operators.py",
]

# torch_core kernel loop API, host side (torch-free, header-only).
torch_core_kernel_loop_headers = [
    "torch_core/csrc/aten/host_device.h",
    "torch_core/csrc/aten/kernel_loop.h",
]

# torch_core aten layer: the generic native ops every backend registers (memory, copies,
# views, scalars, sparse COO basics), the CPU fallback with its policy and counters, the
# device-kernel hooks.
torch_core_aten_headers = [
    "torch_core/csrc/aten/cpu_fallback.h",
    "torch_core/csrc/aten/device_kernels.h",
    "torch_core/csrc/aten/native_ops.h",
    "torch_core/csrc/aten/native_registration.h",
    "torch_core/csrc/aten/sparse_registration.h",
    "torch_core/csrc/aten/structured_operators.h",
    "torch_core/csrc/aten/tensor_loop.h",
]

torch_core_aten_sources = [
    "torch_core/csrc/aten/copy_ops.cpp",
    "torch_core/csrc/aten/cpu_fallback.cpp",
    "torch_core/csrc/aten/device_kernels.cpp",
    "torch_core/csrc/aten/memory_ops.cpp",
    "torch_core/csrc/aten/native_registration.cpp",
    "torch_core/csrc/aten/op_support.h",
    "torch_core/csrc/aten/scalar_ops.cpp",
    "torch_core/csrc/aten/sparse_registration.cpp",
    "torch_core/csrc/aten/view_ops.cpp",
]

# torch_core's kernel engine, device side: the operand description, the elementwise
# calls, their functors and the dispatch to a typed loop. Header-only and free of ATen,
# so a CUDA engine's .cu files include the same functors (TORCH_CORE_HOST_DEVICE).
torch_core_engine_functor_headers = [
    "torch_core/csrc/aten/engine/activation_functors.h",
    "torch_core/csrc/aten/engine/binary_functors.h",
    "torch_core/csrc/aten/engine/binary_math_functors.h",
    "torch_core/csrc/aten/engine/elementwise_call.h",
    "torch_core/csrc/aten/engine/elementwise_dispatch.h",
    "torch_core/csrc/aten/engine/elementwise_functors.h",
    "torch_core/csrc/aten/engine/functor_traits.h",
    "torch_core/csrc/aten/engine/functor_types.h",
    "torch_core/csrc/aten/engine/host_elementwise_loop.h",
    "torch_core/csrc/aten/engine/index_call.h",
    "torch_core/csrc/aten/engine/index_loop.h",
    "torch_core/csrc/aten/engine/loss_functors.h",
    "torch_core/csrc/aten/engine/nn_activation_functors.h",
    "torch_core/csrc/aten/engine/operand_loop.h",
    "torch_core/csrc/aten/engine/pointwise_functors.h",
    "torch_core/csrc/aten/engine/random_call.h",
    "torch_core/csrc/aten/engine/random_dispatch.h",
    "torch_core/csrc/aten/engine/random_functors.h",
    "torch_core/csrc/aten/engine/reduce_call.h",
    "torch_core/csrc/aten/engine/reduce_dispatch.h",
    "torch_core/csrc/aten/engine/reduce_functors.h",
    "torch_core/csrc/aten/engine/scan_call.h",
    "torch_core/csrc/aten/engine/sort_call.h",
    "torch_core/csrc/aten/engine/special_functors.h",
    "torch_core/csrc/aten/engine/unary_functors.h",
]

torch_core_engine_functor_sources = [
    "torch_core/csrc/aten/engine/op_names.cpp",
]

# torch_core's kernel engine, ATen side: the DispatchStub kernels that describe a
# TensorIterator and call the engine registered for its device type, and the generic
# ops' copy and fill kernels over the engine.
torch_core_engine_headers = [
    "torch_core/csrc/aten/engine/engine_device_kernels.h",
    "torch_core/csrc/aten/engine/iterator_loop.h",
    "torch_core/csrc/aten/engine/kernel_engine.h",
    "torch_core/csrc/aten/engine/stub_kernels.h",
    "torch_core/csrc/aten/engine/stub_slot.h",
]

torch_core_engine_sources = [
    "torch_core/csrc/aten/engine/activation_stub_kernels.cpp",
    "torch_core/csrc/aten/engine/engine_device_kernels.cpp",
    "torch_core/csrc/aten/engine/index_copy_stub_kernels.cpp",
    "torch_core/csrc/aten/engine/index_put_accumulate.cpp",
    "torch_core/csrc/aten/engine/cross_stub_kernel.cpp",
    "torch_core/csrc/aten/engine/isin_stub_kernel.cpp",
    "torch_core/csrc/aten/engine/iterator_loop.cpp",
    "torch_core/csrc/aten/engine/kernel_engine.cpp",
    "torch_core/csrc/aten/engine/loss_stub_kernels.cpp",
    "torch_core/csrc/aten/engine/math_stub_kernels.cpp",
    "torch_core/csrc/aten/engine/random_stub_kernels.cpp",
    "torch_core/csrc/aten/engine/scan_stub_kernels.cpp",
    "torch_core/csrc/aten/engine/scatter_gather_stub_kernels.cpp",
    "torch_core/csrc/aten/engine/sort_stub_kernels.cpp",
    "torch_core/csrc/aten/engine/stub_kernels.cpp",
    "torch_core/csrc/aten/engine/unfold_backward_stub_kernel.cpp",
]

# Stock's CUDA kernels of operators that are not device-generic in ATen (softmax, gelu,
# dropout, nll_loss, layer_norm, batch_norm, max_pool2d, convolution without cuDNN,
# index_select, embedding backward, masked_fill_, cat, tril/triu, arange, the AMP scaler,
# bincount, histc), defined device-generically over
# operators the kernel engine runs; registered with their CUDA metadata by the generated
# registrations.
torch_core_composite_headers = [
    "torch_core/csrc/aten/composite/conv_lowering.h",
    "torch_core/csrc/aten/composite/convolution_registration.h",
    "torch_core/csrc/aten/composite/opmath.h",
    "torch_core/csrc/aten/composite/resampling.h",
]

torch_core_composite_sources = [
    "torch_core/csrc/aten/composite/activation.cpp",
    "torch_core/csrc/aten/composite/amp.cpp",
    "torch_core/csrc/aten/composite/assert_async.cpp",
    "torch_core/csrc/aten/composite/avg_pooling.cpp",
    "torch_core/csrc/aten/composite/binary_cross_entropy.cpp",
    "torch_core/csrc/aten/composite/conv_lowering.cpp",
    "torch_core/csrc/aten/composite/convolution.cpp",
    "torch_core/csrc/aten/composite/ctc_loss.cpp",
    "torch_core/csrc/aten/composite/dot.cpp",
    "torch_core/csrc/aten/composite/dropout.cpp",
    "torch_core/csrc/aten/composite/equal.cpp",
    "torch_core/csrc/aten/composite/factories.cpp",
    "torch_core/csrc/aten/composite/fold_unfold.cpp",
    "torch_core/csrc/aten/composite/fused_optimizers.cpp",
    "torch_core/csrc/aten/composite/histogram.cpp",
    "torch_core/csrc/aten/composite/indexing.cpp",
    "torch_core/csrc/aten/composite/loss.cpp",
    "torch_core/csrc/aten/composite/max_unpool.cpp",
    "torch_core/csrc/aten/composite/nll_loss2d.cpp",
    "torch_core/csrc/aten/composite/nonzero.cpp",
    "torch_core/csrc/aten/composite/normalization.cpp",
    "torch_core/csrc/aten/composite/order_statistics.cpp",
    "torch_core/csrc/aten/composite/padding.cpp",
    "torch_core/csrc/aten/composite/pooling.cpp",
    "torch_core/csrc/aten/composite/resampling.cpp",
    "torch_core/csrc/aten/composite/rnn_cells.cpp",
    "torch_core/csrc/aten/composite/shape.cpp",
    "torch_core/csrc/aten/composite/softmax.cpp",
    "torch_core/csrc/aten/composite/sorting.cpp",
    "torch_core/csrc/aten/composite/upsample.cpp",
]

# The host engine: the kernel engine of simulated devices (host loops on stream workers).
torch_core_host_engine_headers = [
    "torch_core/csrc/aten/engine/host_engine.h",
]

torch_core_host_engine_sources = [
    "torch_core/csrc/aten/engine/host_engine.cpp",
]

# A backend's C++ extensions: their elementwise kernels on a simulated device's host
# engine (backend-generic; torch_cuda's gpu_kernel.h builds on it).
torch_core_extension_headers = [
    "torch_core/csrc/extension/host_kernel.h",
    "torch_core/csrc/extension/kernel_operands.h",
]

# torch_core host-loop kernels: DeviceKernels (copy, fill) for a device whose memory the
# host addresses (torch_sim, torch_cuda's simulated variant).
torch_core_host_loop_kernels_headers = [
    "torch_core/csrc/aten/host_loop_kernels.h",
]

torch_core_host_loop_kernels_sources = [
    "torch_core/csrc/aten/host_loop_device_kernels.cpp",
]

# torch_cuda (RFC-0045's tree): C++ under torch_cuda/csrc/{aten,framework,pybinding},
# the Python package torch_cuda/, the ledger torch_patches/ beside it, the simulated
# variant under simulated/.

# CUDA_CHECK and CudaError: the one cudart error check of the CUDA code.
torch_cuda_cuda_check_headers = [
    "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_check.h",
]

# The per-thread pool of library handles (cuBLAS's, cuSOLVER's); library-free.
torch_cuda_handle_pool_headers = [
    "third_device/torch_cuda/torch_cuda/csrc/framework/handle_pool.h",
]

# The runtime over cudart (host C++, compiled by the C++ toolchain).
torch_cuda_cuda_runtime_sources = [
    "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_device_checks.h",
    "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_device_graphs.cpp",
    "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_device_runtime.cpp",
    "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_device_vm.cpp",
]

torch_cuda_cuda_runtime_headers = [
    "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_device_runtime.h",
]

# torch_cuda backend on the CUDA key, shared by the real and simulated variants: backend
# registration, CUDA hooks, operator registrations, and the variant interface.
torch_cuda_backend_headers = [
    "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_backend.h",
    "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_hooks.h",
    "third_device/torch_cuda/torch_cuda/csrc/framework/variant.h",
]

torch_cuda_backend_sources = [
    "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_backend.cpp",
    "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_hooks.cpp",
    "third_device/torch_cuda/torch_cuda/csrc/framework/native_registration.cpp",
]

# variant.h over cudart (the real variant).
torch_cuda_real_variant_sources = [
    "third_device/torch_cuda/torch_cuda/csrc/framework/real_variant.cpp",
]

# The device smoke test: a contiguous add kernel (device code, nvcc) and the round trip
# through the GPU that launches it (host C++).
torch_cuda_smoke_kernel_sources = [
    "third_device/torch_cuda/torch_cuda/csrc/aten/kernels/elementwise_add.cu",
]

torch_cuda_smoke_kernel_headers = [
    "third_device/torch_cuda/torch_cuda/csrc/aten/kernels/elementwise_add.h",
]

# torch.cuda._sleep's kernel: spins a number of GPU clock cycles on a stream.
torch_cuda_spin_kernel_sources = [
    "third_device/torch_cuda/torch_cuda/csrc/aten/kernels/spin.cu",
]

torch_cuda_spin_kernel_headers = [
    "third_device/torch_cuda/torch_cuda/csrc/aten/kernels/spin.h",
]

torch_cuda_device_smoke_sources = [
    "third_device/torch_cuda/torch_cuda/csrc/aten/kernels/device_smoke.cpp",
]

torch_cuda_device_smoke_headers = [
    "third_device/torch_cuda/torch_cuda/csrc/aten/kernels/device_smoke.h",
]

# The CUDA engine: torch_core's elementwise functors as GPU kernels, one .cu per group of
# operations (device code), and the engine that torch_core's stub kernels call (host).
torch_cuda_engine_kernel_sources = [
    "third_device/torch_cuda/torch_cuda/csrc/aten/engine/elementwise_activation.cu",
    "third_device/torch_cuda/torch_cuda/csrc/aten/engine/elementwise_binary.cu",
    "third_device/torch_cuda/torch_cuda/csrc/aten/engine/elementwise_binary_math.cu",
    "third_device/torch_cuda/torch_cuda/csrc/aten/engine/elementwise_compare.cu",
    "third_device/torch_cuda/torch_cuda/csrc/aten/engine/elementwise_loss.cu",
    "third_device/torch_cuda/torch_cuda/csrc/aten/engine/elementwise_nn_activation.cu",
    "third_device/torch_cuda/torch_cuda/csrc/aten/engine/elementwise_pointwise.cu",
    "third_device/torch_cuda/torch_cuda/csrc/aten/engine/elementwise_polynomial.cu",
    "third_device/torch_cuda/torch_cuda/csrc/aten/engine/elementwise_special.cu",
    "third_device/torch_cuda/torch_cuda/csrc/aten/engine/elementwise_unary_math.cu",
    "third_device/torch_cuda/torch_cuda/csrc/aten/engine/elementwise_unary_other.cu",
    "third_device/torch_cuda/torch_cuda/csrc/aten/engine/index.cu",
    "third_device/torch_cuda/torch_cuda/csrc/aten/engine/random.cu",
    "third_device/torch_cuda/torch_cuda/csrc/aten/engine/scan.cu",
    "third_device/torch_cuda/torch_cuda/csrc/aten/engine/sort.cu",
    "third_device/torch_cuda/torch_cuda/csrc/aten/engine/reduce_arithmetic.cu",
    "third_device/torch_cuda/torch_cuda/csrc/aten/engine/reduce_comparison.cu",
]

# torch_cuda's C++ extension API, #included as <torch_cuda/gpu_kernel.h>: an extension's
# elementwise functor as a GPU kernel (nvcc) or on the simulated device (host compiler).
torch_cuda_extension_headers = [
    "third_device/torch_cuda/torch_cuda/csrc/extension/gpu_kernel.h",
]

# The generated header stock's c10/cuda headers include, which the CPU wheel lacks;
# #included as <c10/cuda/impl/cuda_cmake_macros.h>.
torch_cuda_stock_cuda_headers = [
    "third_device/torch_cuda/torch_cuda/csrc/extension/c10/cuda/impl/cuda_cmake_macros.h",
]

# c10::cuda's and at::cuda's functions under stock's names (the pinned torch's own
# c10/cuda and ATen/cuda headers declare them), for extensions written for stock CUDA
# torch; the real variant only.
torch_cuda_stock_cuda_api_sources = [
    "third_device/torch_cuda/torch_cuda/csrc/extension/stock_aten_cuda.cpp",
    "third_device/torch_cuda/torch_cuda/csrc/extension/stock_c10_cuda.cpp",
    "third_device/torch_cuda/torch_cuda/csrc/extension/stock_cuda_allocator.cpp",
    "third_device/torch_cuda/torch_cuda/csrc/extension/stable_abi_cudart.cpp",
]

# The stable C ABI's CUDA device, guard and stream entries (stock: libtorch_cuda), for
# extensions built against the stable ABI alone; both variants.
torch_cuda_stable_abi_sources = [
    "third_device/torch_cuda/torch_cuda/csrc/extension/stable_abi_cuda.cpp",
]

torch_cuda_engine_kernel_headers = [
    "third_device/torch_cuda/torch_cuda/csrc/aten/engine/cuda_executor.cuh",
    "third_device/torch_cuda/torch_cuda/csrc/aten/engine/cuda_kernels.h",
    "third_device/torch_cuda/torch_cuda/csrc/aten/engine/cuda_reduce_executor.cuh",
    "third_device/torch_cuda/torch_cuda/csrc/aten/engine/radix_key.h",
    "third_device/torch_cuda/torch_cuda/csrc/aten/loop_index.h",
]

torch_cuda_engine_sources = [
    "third_device/torch_cuda/torch_cuda/csrc/aten/engine/cuda_engine.cpp",
]

torch_cuda_engine_headers = [
    "third_device/torch_cuda/torch_cuda/csrc/aten/engine/cuda_engine.h",
]

# The plans of the matrix products and the cuBLAS workspace size (no CUDA header): what
# both variants' executors run.
torch_cuda_gemm_plan_sources = [
    "third_device/torch_cuda/torch_cuda/csrc/aten/blas/gemm_plan.cpp",
    "third_device/torch_cuda/torch_cuda/csrc/aten/blas/workspace_size.cpp",
]

torch_cuda_gemm_plan_headers = [
    "third_device/torch_cuda/torch_cuda/csrc/aten/blas/gemm_plan.h",
    "third_device/torch_cuda/torch_cuda/csrc/aten/blas/workspace_size.h",
]

# The cuBLAS executor: gemm, strided-batched gemm, gemv, cuBLASLt's matmul with an
# epilogue, handles, math modes.
torch_cuda_blas_sources = [
    "third_device/torch_cuda/torch_cuda/csrc/aten/blas/cublas_handle.cpp",
    "third_device/torch_cuda/torch_cuda/csrc/aten/blas/gemm.cpp",
    "third_device/torch_cuda/torch_cuda/csrc/aten/blas/lt_matmul.cpp",
]

torch_cuda_blas_headers = [
    "third_device/torch_cuda/torch_cuda/csrc/aten/blas/cublas_check.h",
    "third_device/torch_cuda/torch_cuda/csrc/aten/blas/cublas_handle.h",
    "third_device/torch_cuda/torch_cuda/csrc/aten/blas/gemm.h",
]

# Linear algebra on the CUDA key (mm, addmm, bmm, baddbmm, mv, addmv): gemm plans handed
# to the variant's executor.
torch_cuda_blas_ops_sources = [
    "third_device/torch_cuda/torch_cuda/csrc/aten/blas/tunable_gemm.cpp",
    "third_device/torch_cuda/torch_cuda/csrc/aten/blas/tunable_gemm.h",
    "third_device/torch_cuda/torch_cuda/csrc/aten/blas_ops.cpp",
]

# The least-recently-used cache of library executables, one per device, that the FFT plans
# and cuDNN's convolutions and attention share (no CUDA header).
torch_cuda_lru_cache_headers = [
    "third_device/torch_cuda/torch_cuda/csrc/aten/lru_cache.h",
]

# The plans of the FFTs and their per-device cache (no CUDA header): what both variants'
# executors run.
torch_cuda_fft_plan_sources = [
    "third_device/torch_cuda/torch_cuda/csrc/aten/fft/fft_plan.cpp",
    "third_device/torch_cuda/torch_cuda/csrc/aten/fft/fft_plan_cache.cpp",
]

torch_cuda_fft_plan_headers = [
    "third_device/torch_cuda/torch_cuda/csrc/aten/fft/fft_plan.h",
    "third_device/torch_cuda/torch_cuda/csrc/aten/fft/fft_plan_cache.h",
]

# The cuFFT executor of the plans.
torch_cuda_cufft_sources = [
    "third_device/torch_cuda/torch_cuda/csrc/aten/fft/cufft_executor.cpp",
]

# torch.fft on the CUDA key (_fft_r2c, _fft_c2r, _fft_c2c): plans handed to the variant's
# executor, and the conjugate-symmetry stub a two-sided R2C fills its other half with.
torch_cuda_fft_ops_sources = [
    "third_device/torch_cuda/torch_cuda/csrc/aten/fft/conjugate_symmetry.cpp",
    "third_device/torch_cuda/torch_cuda/csrc/aten/fft_ops.cpp",
]

# The plans of cuDNN's attention and convolutions (and their per-device caches), batch norms,
# CTC loss, grid sampler and RNNs, no CUDA header: what both variants' executors run.
torch_cuda_dnn_plans_sources = [
    "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/attention_executable.cpp",
    "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/attention_plan.cpp",
    "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/batch_norm_plan.cpp",
    "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/conv_executable.cpp",
    "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/conv_plan.cpp",
    "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/ctc_loss_plan.cpp",
    "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/grid_sampler_plan.cpp",
    "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/rnn_plan.cpp",
]

torch_cuda_dnn_plans_headers = [
    "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/attention_executable.h",
    "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/attention_plan.h",
    "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/batch_norm_executable.h",
    "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/batch_norm_plan.h",
    "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/conv_executable.h",
    "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/conv_plan.h",
    "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/ctc_loss_executable.h",
    "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/ctc_loss_plan.h",
    "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_tensors.h",
    "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_version.h",
    "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/grid_sampler_executable.h",
    "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/grid_sampler_plan.h",
    "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/rnn_executable.h",
    "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/rnn_plan.h",
]

# The cuDNN executors of those plans.
torch_cuda_cudnn_sources = [
    "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_attention_executor.cpp",
    "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_batch_norm_executor.cpp",
    "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_check.h",
    "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_common.cpp",
    "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_common.h",
    "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_conv_executor.cpp",
    "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_ctc_loss_executor.cpp",
    "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_grid_sampler_executor.cpp",
    "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_rnn_executor.cpp",
]

# cudnn_convolution, cudnn_convolution_transpose, cudnn_batch_norm, cudnn_grid_sampler,
# _cudnn_rnn, _scaled_dot_product_cudnn_attention and their backward operators,
# _cudnn_ctc_loss, the choice of SDPA kernel (_fused_sdp_choice) on the CUDA key, and the
# RNN stubs' CUDA slots: plans handed to the variant's executor.
torch_cuda_dnn_ops_sources = [
    "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn_attention_ops.cpp",
    "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn_batch_norm_ops.cpp",
    "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn_conv_ops.cpp",
    "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn_ctc_loss_ops.cpp",
    "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn_grid_sampler_ops.cpp",
    "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn_operands.h",
    "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn_rnn_ops.cpp",
    "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn_rnn_stubs.cpp",
    "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn_rnn_weights.cpp",
    "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn_rnn_weights.h",
    "third_device/torch_cuda/torch_cuda/csrc/aten/sdp_choice.cpp",
]

# The plans of the dense solvers (no CUDA header): what both variants' executors run.
torch_cuda_solver_plan_sources = [
    "third_device/torch_cuda/torch_cuda/csrc/aten/linalg/solver_plan.cpp",
]

torch_cuda_solver_plan_headers = [
    "third_device/torch_cuda/torch_cuda/csrc/aten/linalg/solver_plan.h",
]

# The cuSOLVER executor of the plans and its per-thread handles.
torch_cuda_cusolver_sources = [
    "third_device/torch_cuda/torch_cuda/csrc/aten/linalg/cusolver_executor.cpp",
    "third_device/torch_cuda/torch_cuda/csrc/aten/linalg/cusolver_handle.cpp",
]

torch_cuda_cusolver_headers = [
    "third_device/torch_cuda/torch_cuda/csrc/aten/linalg/cusolver_handle.h",
]

# torch.linalg on the CUDA key: the CUDA slots of stock's solver DispatchStubs, as plans
# handed to the variant's executor (the operators: linalg/solver_operators.txt).
torch_cuda_solver_stubs_sources = [
    "third_device/torch_cuda/torch_cuda/csrc/aten/linalg/solver_stubs.cpp",
]

# NCCL's communicator (torch-free, GPU-only) and the rendezvous that makes one per rank
# through the process group's store.
torch_cuda_nccl_communicator_sources = [
    "third_device/torch_cuda/torch_cuda/csrc/distributed/nccl_communicator.cpp",
]

torch_cuda_nccl_communicator_headers = [
    "third_device/torch_cuda/torch_cuda/csrc/distributed/nccl_communicator.h",
]

torch_cuda_nccl_rendezvous_sources = [
    "third_device/torch_cuda/torch_cuda/csrc/distributed/nccl_rendezvous.cpp",
]

torch_cuda_nccl_rendezvous_headers = [
    "third_device/torch_cuda/torch_cuda/csrc/distributed/nccl_rendezvous.h",
]

# TunableOp's context (torch.cuda.tunable): settings, results, files; torch-free.
torch_cuda_tunable_sources = [
    "third_device/torch_cuda/torch_cuda/csrc/aten/blas/tuning_context.cpp",
]

torch_cuda_tunable_headers = [
    "third_device/torch_cuda/torch_cuda/csrc/aten/blas/tuning_context.h",
]

# torch_python_cuda: the _CUDAC extension module's init, shared by both variants.
torch_python_cuda_sources = [
    "third_device/torch_cuda/torch_cuda/csrc/pybinding/blas_bindings.cpp",
    "third_device/torch_cuda/torch_cuda/csrc/pybinding/cudac_module.cpp",
    "third_device/torch_cuda/torch_cuda/csrc/pybinding/legacy_tensor_types.cpp",
    "third_device/torch_cuda/torch_cuda/csrc/pybinding/nccl_bindings.cpp",
    "third_device/torch_cuda/torch_cuda/csrc/pybinding/nvtx_bindings.cpp",
    "third_device/torch_cuda/torch_cuda/csrc/pybinding/tunable_bindings.cpp",
]

torch_python_cuda_headers = [
    "third_device/torch_cuda/torch_cuda/csrc/pybinding/blas_bindings.h",
    "third_device/torch_cuda/torch_cuda/csrc/pybinding/legacy_tensor_types.h",
    "third_device/torch_cuda/torch_cuda/csrc/pybinding/nccl_bindings.h",
    "third_device/torch_cuda/torch_cuda/csrc/pybinding/nvtx_bindings.h",
    "third_device/torch_cuda/torch_cuda/csrc/pybinding/tunable_bindings.h",
    "third_device/torch_cuda/torch_cuda/csrc/pybinding/variant_bindings.h",
]

# The real variant's extra _CUDAC functions (device queries over cudart, the smoke test).
torch_python_cuda_real_sources = [
    "third_device/torch_cuda/torch_cuda/csrc/pybinding/real_bindings.cpp",
]

# The torch_cuda Python package (RFC layout: backends/ and core/).
torch_cuda_python_sources = [
    "third_device/torch_cuda/torch_cuda/__init__.py",
    "third_device/torch_cuda/torch_cuda/cpp_extension.py",
    "third_device/torch_cuda/torch_cuda/_loader.py",
    "third_device/torch_cuda/torch_cuda/backends/__init__.py",
    "third_device/torch_cuda/torch_cuda/core/__init__.py",
    "third_device/torch_cuda/torch_cuda/core/version.py",
    "third_device/torch_cuda/torch_cuda/torch_c/__init__.py",
    "third_device/torch_cuda/torch_cuda/torch_c/blas.py",
    "third_device/torch_cuda/torch_cuda/torch_c/comm.py",
    "third_device/torch_cuda/torch_cuda/torch_c/coverage.py",
    "third_device/torch_cuda/torch_cuda/torch_c/device.py",
    "third_device/torch_cuda/torch_cuda/torch_c/graphs.py",
    "third_device/torch_cuda/torch_cuda/torch_c/memory.py",
    "third_device/torch_cuda/torch_cuda/torch_c/names.py",
    "third_device/torch_cuda/torch_cuda/torch_c/nvtx.py",
    "third_device/torch_cuda/torch_cuda/torch_c/pools.py",
    "third_device/torch_cuda/torch_cuda/torch_c/stream_event.py",
    "third_device/torch_cuda/torch_cuda/torch_c/tunable.py",
    "third_device/torch_cuda/torch_cuda/torch_c/unsupported.py",
]

# The torch_patches ledger, beside the package as in RFC-0045; Python imports it as
# torch_cuda.torch_patches (the BUILD file places it there).
torch_cuda_patches_sources = [
    "third_device/torch_cuda/torch_patches/__init__.py",
    "third_device/torch_cuda/torch_patches/_after_import.py",
    "third_device/torch_cuda/torch_patches/_pinned.py",
    "third_device/torch_cuda/torch_patches/cuda_storage.py",
    "third_device/torch_cuda/torch_patches/cudnn_module.py",
    "third_device/torch_cuda/torch_patches/gloo_device_staging.py",
    "third_device/torch_cuda/torch_patches/legacy_cuda_tensor_types.py",
    "third_device/torch_cuda/torch_patches/load_before_torch_c.py",
    "third_device/torch_cuda/torch_patches/nccl_process_group.py",
    "third_device/torch_cuda/torch_patches/new_device_cpp_extension.py",
    "third_device/torch_cuda/torch_patches/raw_stream_for_dynamo.py",
    "third_device/torch_cuda/torch_patches/torch_c_names.py",
    "third_device/torch_cuda/torch_patches/version_cuda.py",
]

# The activation module a wheel puts at its top level, beside torch_cuda_activate.pth.
torch_cuda_activation_sources = [
    "third_device/torch_cuda/_torch_cuda_activate.py",
]

# The simulated variant: variant.h over torch_core's simulated device, the host BLAS, cuDNN,
# FFT and solver executors, and its _CUDAC functions.
torch_cuda_simulated_variant_sources = [
    "third_device/torch_cuda/simulated/csrc/host_attention.cpp",
    "third_device/torch_cuda/simulated/csrc/host_batch_norm.cpp",
    "third_device/torch_cuda/simulated/csrc/host_blas.cpp",
    "third_device/torch_cuda/simulated/csrc/host_conv.cpp",
    "third_device/torch_cuda/simulated/csrc/host_ctc_loss.cpp",
    "third_device/torch_cuda/simulated/csrc/host_fft.cpp",
    "third_device/torch_cuda/simulated/csrc/host_grid_sampler.cpp",
    "third_device/torch_cuda/simulated/csrc/host_index.h",
    "third_device/torch_cuda/simulated/csrc/host_rnn.cpp",
    "third_device/torch_cuda/simulated/csrc/host_rnn_layout.h",
    "third_device/torch_cuda/simulated/csrc/host_solver.cpp",
    "third_device/torch_cuda/simulated/csrc/library_calls.cpp",
    "third_device/torch_cuda/simulated/csrc/simulated_variant.cpp",
    "third_device/torch_cuda/simulated/csrc/tf32.h",
]

torch_cuda_simulated_variant_headers = [
    "third_device/torch_cuda/simulated/csrc/library_calls.h",
]

torch_python_cuda_simulated_sources = [
    "third_device/torch_cuda/simulated/csrc/simulated_bindings.cpp",
]

# The main job's demo, and the torch._C names coverage table.
torch_cuda_demo_sources = [
    "third_device/torch_cuda/demo.py",
    "third_device/torch_cuda/demo_training.py",
]

torch_cuda_tools_sources = [
    "third_device/torch_cuda/tools/cuda_names_coverage.py",
]

# torch_sim: the PrivateUse1 reference backend on the simulated runtime.
torch_sim_headers = [
    "third_device/torch_sim/csrc/sim_backend.h",
]

torch_sim_sources = [
    "third_device/torch_sim/csrc/aten/registration.cpp",
    "third_device/torch_sim/csrc/sim_backend.cpp",
]

# torch_python_sim: the _SIMC extension module.
torch_python_sim_sources = [
    "third_device/torch_sim/csrc/python/sim_module.cpp",
]

# The torch_sim Python package.
torch_sim_python_sources = [
    "third_device/torch_sim/torch_sim/__init__.py",
    "third_device/torch_sim/torch_sim/cpp_extension.py",
]
