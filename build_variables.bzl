"""Named source groups, as PyTorch's build_variables.bzl: the one list of what each
library is made of. BUILD files turn the groups into targets with explicit deps."""

# torch_core: the device-agnostic layer (depends on @torch only).
torch_core_runtime_headers = [
    "csrc/runtime/device_runtime.h",
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
