"""Named source groups, as PyTorch's build_variables.bzl: the one list of what each
library is made of. BUILD files turn the groups into targets with explicit deps."""

# torch_core: the device-agnostic layer (depends on @torch only).
torch_core_runtime_headers = [
    "csrc/runtime/device_runtime.h",
]

# The simulated runtime: the interface over host memory and host threads (torch-free).
torch_core_simulated_runtime_headers = [
    "csrc/runtime/simulated_config.h",
    "csrc/runtime/simulated_runtime.h",
]

# Sources, with the headers private to them (stream, event and memory internals).
torch_core_simulated_runtime_sources = [
    "csrc/runtime/simulated_config.cpp",
    "csrc/runtime/simulated_event.cpp",
    "csrc/runtime/simulated_event.h",
    "csrc/runtime/simulated_memory.cpp",
    "csrc/runtime/simulated_memory.h",
    "csrc/runtime/simulated_runtime.cpp",
    "csrc/runtime/simulated_stream.cpp",
    "csrc/runtime/simulated_stream.h",
]

# The caching device allocator over the runtime interface (torch-free): public headers.
torch_core_allocator_headers = [
    "csrc/runtime/allocator_config.h",
    "csrc/runtime/allocator_errors.h",
    "csrc/runtime/allocator_sizes.h",
    "csrc/runtime/allocator_snapshot.h",
    "csrc/runtime/allocator_stats.h",
    "csrc/runtime/caching_allocator.h",
]

# Sources, with the headers private to them (blocks, pools, the per-device cache).
torch_core_allocator_sources = [
    "csrc/runtime/allocator_config.cpp",
    "csrc/runtime/allocator_sizes.cpp",
    "csrc/runtime/allocator_stats.cpp",
    "csrc/runtime/caching_allocator.cpp",
    "csrc/runtime/caching_allocator_block.h",
    "csrc/runtime/caching_allocator_device.cpp",
    "csrc/runtime/caching_allocator_device.h",
]

# The caching pinned-host allocator over the runtime interface (torch-free).
torch_core_host_allocator_headers = [
    "csrc/runtime/host_pinned_allocator.h",
]

torch_core_host_allocator_sources = [
    "csrc/runtime/host_pinned_allocator.cpp",
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
torch_cuda_kernel_sources = [
    "csrc/aten/kernels/elementwise_add.cu",
]

torch_cuda_kernel_headers = [
    "csrc/aten/kernels/elementwise_add.h",
]

# torch_python_cuda: the _CUDAC extension module.
torch_python_cuda_sources = [
    "csrc/pybinding/cudac_module.cpp",
]

# The torch_cuda Python package (RFC layout: backends/ and core/).
torch_cuda_python_sources = [
    "torch_cuda/__init__.py",
    "torch_cuda/backends/__init__.py",
    "torch_cuda/core/__init__.py",
    "torch_cuda/core/version.py",
]
