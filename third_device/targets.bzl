"""The targets of every backend package, for genquery scopes.

genquery cannot expand `//pkg/...` or `:all`; the audits and the dependency graph name
these lists as their scope while their expressions say `//third_device/<backend>:all`,
so a target added to a backend but missing here fails those queries loudly.
"""

TORCH_CUDA_TARGETS = [
    "//third_device/torch_cuda:_CUDAC",
    "//third_device/torch_cuda:_CUDAC.so",
    "//third_device/torch_cuda:cuda_names_coverage",
    "//third_device/torch_cuda:demo",
    "//third_device/torch_cuda:simulated_torch_cuda_py",
    "//third_device/torch_cuda:simulated_wheel",
    "//third_device/torch_cuda:source_files",
    "//third_device/torch_cuda:torch_cuda",
    "//third_device/torch_cuda:torch_cuda_py",
    "//third_device/torch_cuda:torch_cuda_py_lib",
    "//third_device/torch_cuda:torch_patches_in_package",
    "//third_device/torch_cuda:torch_python_cuda",
    "//third_device/torch_cuda:wheel",
    "//third_device/torch_cuda/torch_cuda/csrc:backend",
    "//third_device/torch_cuda/torch_cuda/csrc:blas_ops",
    "//third_device/torch_cuda/torch_cuda/csrc:cuda_blas",
    "//third_device/torch_cuda/torch_cuda/csrc:cuda_check",
    "//third_device/torch_cuda/torch_cuda/csrc:cuda_engine",
    "//third_device/torch_cuda/torch_cuda/csrc:cuda_runtime",
    "//third_device/torch_cuda/torch_cuda/csrc:device_smoke",
    "//third_device/torch_cuda/torch_cuda/csrc:elementwise_add",
    "//third_device/torch_cuda/torch_cuda/csrc:engine_kernels",
    "//third_device/torch_cuda/torch_cuda/csrc:gemm_plan",
    "//third_device/torch_cuda/torch_cuda/csrc:generated_registrations",
    "//third_device/torch_cuda/torch_cuda/csrc:generated_registrations_cpp",
    "//third_device/torch_cuda/torch_cuda/csrc:pybinding",
    "//third_device/torch_cuda/torch_cuda/csrc:real_pybinding",
    "//third_device/torch_cuda/torch_cuda/csrc:real_variant",
    "//third_device/torch_cuda/torch_cuda/csrc:source_files",
    "//third_device/torch_cuda/simulated:_CUDAC",
    "//third_device/torch_cuda/simulated:_CUDAC.so",
    "//third_device/torch_cuda/simulated:simulated_pybinding",
    "//third_device/torch_cuda/simulated:simulated_variant",
    "//third_device/torch_cuda/simulated:source_files",
]

TORCH_SIM_TARGETS = [
    "//third_device/torch_sim:_SIMC",
    "//third_device/torch_sim:_SIMC.so",
    "//third_device/torch_sim:generated_registrations",
    "//third_device/torch_sim:generated_registrations_cpp",
    "//third_device/torch_sim:source_files",
    "//third_device/torch_sim:torch_python_sim",
    "//third_device/torch_sim:torch_sim",
    "//third_device/torch_sim:torch_sim_py",
]

THIRD_DEVICE_TARGETS = TORCH_CUDA_TARGETS + TORCH_SIM_TARGETS

# The `:all` patterns of the packages above, for query expressions.
THIRD_DEVICE_ALL = (
    "//third_device/torch_cuda:all + //third_device/torch_cuda/torch_cuda/csrc:all + " +
    "//third_device/torch_cuda/simulated:all + " +
    "//third_device/torch_sim:all"
)
