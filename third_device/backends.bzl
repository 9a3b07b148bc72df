"""Every backend of the repository, in one list.

The layering audits, the source-group test, the dependency graph, the contract suite and
the conformance run all derive their scopes from BACKENDS: adding a backend is its own
directory plus one entry here (README: "How to add a backend").

genquery cannot expand `//pkg/...` or `:all`, so each entry also lists its targets; the
audits' expressions say `<package>:all`, so a target added to a backend but missing from
its list makes those queries fail loudly.
"""

def backend(
        name,
        device,
        packages,
        targets,
        shipped_libraries,
        test_deps,
        test_env = {},
        test_env_by_file = {},
        vendor_repositories = []):
    """One backend.

    Args:
      name: its Python package (`torch_sim`), also the prefix of its test names.
      device: the device type torch names its tensors by (`sim`, `cuda`).
      packages: its Bazel packages.
      targets: every target of those packages (genquery scopes).
      shipped_libraries: the C++ targets it ships (include audit).
      test_deps: what a test that uses it depends on (its Python package, activation).
      test_env: environment for its tests (device settings).
      test_env_by_file: {contract file: environment} for single contract tests.
      vendor_repositories: the vendor repositories it may reach (`cuda`); none may reach
        another backend's.
    """
    return struct(
        name = name,
        device = device,
        packages = packages,
        targets = targets,
        shipped_libraries = shipped_libraries,
        test_deps = test_deps,
        test_env = test_env,
        test_env_by_file = test_env_by_file,
        vendor_repositories = vendor_repositories,
    )

BACKENDS = [
    # The PrivateUse1 reference backend: the template a vendor copies, vendor-free.
    backend(
        name = "torch_sim",
        device = "sim",
        packages = ["//third_device/torch_sim"],
        targets = [
            "//third_device/torch_sim:_SIMC",
            "//third_device/torch_sim:_SIMC.so",
            "//third_device/torch_sim:generated_registrations",
            "//third_device/torch_sim:generated_registrations_cpp",
            "//third_device/torch_sim:source_files",
            "//third_device/torch_sim:torch_python_sim",
            "//third_device/torch_sim:torch_sim",
            "//third_device/torch_sim:torch_sim_py",
        ],
        shipped_libraries = [
            "//third_device/torch_sim:_SIMC.so",
            "//third_device/torch_sim:torch_sim",
        ],
        test_deps = ["//third_device/torch_sim:torch_sim_py"],
        # Two devices (cross-device tests), a fixed memory size (the OOM test fills it).
        test_env = {"TORCH_SIM_DEVICE_COUNT": "2"},
        test_env_by_file = {"oom": {"TORCH_SIM_MEMORY_MB": "64"}},
    ),
    # The CUDA key; tests run its simulated variant, activated as an installed wheel's
    # .pth would be (//tests/cuda_key:activate).
    backend(
        name = "torch_cuda",
        device = "cuda",
        packages = [
            "//third_device/torch_cuda",
            "//third_device/torch_cuda/simulated",
            "//third_device/torch_cuda/torch_cuda/csrc",
        ],
        targets = [
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
            "//third_device/torch_cuda/torch_cuda/csrc:extension_api_cuda",
            "//third_device/torch_cuda/torch_cuda/csrc:gemm_plan",
            "//third_device/torch_cuda/torch_cuda/csrc:generated_registrations",
            "//third_device/torch_cuda/torch_cuda/csrc:generated_registrations_cpp",
            "//third_device/torch_cuda/torch_cuda/csrc:pybinding",
            "//third_device/torch_cuda/torch_cuda/csrc:real_pybinding",
            "//third_device/torch_cuda/torch_cuda/csrc:real_variant",
            "//third_device/torch_cuda/torch_cuda/csrc:source_files",
            "//third_device/torch_cuda/torch_cuda/csrc:spin_kernel",
            "//third_device/torch_cuda/torch_cuda/csrc:tunable",
            "//third_device/torch_cuda/simulated:_CUDAC",
            "//third_device/torch_cuda/simulated:_CUDAC.so",
            "//third_device/torch_cuda/simulated:simulated_pybinding",
            "//third_device/torch_cuda/simulated:simulated_variant",
            "//third_device/torch_cuda/simulated:source_files",
        ],
        shipped_libraries = [
            "//third_device/torch_cuda:_CUDAC.so",
            "//third_device/torch_cuda:torch_cuda",
        ],
        test_deps = [
            "//tests/cuda_key:activate",
            "//third_device/torch_cuda:simulated_torch_cuda_py",
        ],
        test_env = {"TORCH_SIM_DEVICE_COUNT": "2"},
        test_env_by_file = {"oom": {"TORCH_SIM_MEMORY_MB": "64"}},
        vendor_repositories = ["cuda"],
    ),
]

# Every vendor repository some backend owns (@cuda covers @cuda_cublas: see the audits).
VENDOR_REPOSITORIES = ["cuda"]

THIRD_DEVICE_TARGETS = [target for b in BACKENDS for target in b.targets]

def backend_all(b):
    """The `:all` patterns of one backend's packages, for query expressions."""
    return " + ".join([package + ":all" for package in b.packages])

# The `:all` patterns of every backend package, for query expressions.
THIRD_DEVICE_ALL = " + ".join([backend_all(b) for b in BACKENDS])
