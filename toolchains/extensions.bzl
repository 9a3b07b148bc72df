"""The external repositories of the monorepo, all pinned.

- @torch: the stock CPU-only torch wheel (torch_cpu) with its import-time deps.
- @cuda: the CUDA 13.5 toolkit assembled from NVIDIA's PyPI wheels.
- @cuda_cublas: cuBLAS/cuBLASLt, separate so its 444 MB are fetched only when linked.
- @cuda_nvtx: NVTX3 (header-only), what torch.cuda.nvtx calls.
- @cuda_cudnn: cuDNN's headers and libcudnn.so.9, what the real variant links;
  @cuda_cudnn_engines: the whole cuDNN wheel, to run it under Bazel (the GPU tests).
- @cuda_cudnn_frontend: cuDNN's frontend (header-only C++ graph API), what the real
  variant's attention builds its cuDNN graphs with; @cuda_nvrtc: NVRTC, which the
  frontend's headers call (its runtime-compiled engines).
- @cuda_nccl: NCCL, the real variant's collectives (torch.distributed's "nccl").
- @cuda_cufft: cuFFT, the real variant's torch.fft.
- @cuda_cusolver: cuSOLVER (with the cuSPARSE and nvJitLink it links), the real variant's
  torch.linalg.
- @torch_testing: what torch.testing._internal (OpInfo) needs beyond @torch, for tests.
- @codegen_python: what the torch wheel's torchgen needs beyond @torch (PyYAML), for codegen.
- @python_coverage: coverage.py, the Python toolchain's coverage tool (`bazel coverage`).
- @host_python: CPython 3.11, its standard library and headers from pinned Debian packages,
  the Python toolchain's interpreter and what extension modules compile against.
- @host_gcc: GCC 12, binutils and a glibc sysroot from pinned Debian packages, the C/C++
  toolchain (toolchains/cc).
- @pinned_versions: wheels.lock's versions and the project's, as constants for BUILD files
  (a wheel's Requires-Dist); fetches nothing.
"""

load("//toolchains/cc:host_gcc_repository.bzl", "host_gcc_repository")
load("//toolchains/python:host_python_repository.bzl", "host_python_repository")
load("//toolchains/wheels:pinned_versions.bzl", "pinned_versions")
load("//toolchains/wheels:pinned_wheels.bzl", "pinned_wheels")

def _hermetic_deps_impl(module_ctx):
    pinned_wheels(
        name = "torch",
        build_file = "//toolchains/torch:BUILD.torch.bazel",
        packages = [
            "torch",
            "filelock",
            "fsspec",
            "jinja2",
            "markupsafe",
            "mpmath",
            "networkx",
            "numpy",
            "sympy",
            "typing-extensions",
        ],
    )
    pinned_wheels(
        name = "cuda",
        build_file = "//toolchains/cuda:BUILD.cuda.bazel",
        packages = [
            "nvidia-cuda-nvcc",
            "nvidia-nvvm",
            "nvidia-cuda-crt",
            "nvidia-cuda-runtime",
            "nvidia-cuda-cccl",
            "nvidia-cuda-cuobjdump",
        ],
    )
    pinned_wheels(
        name = "cuda_cublas",
        build_file = "//toolchains/cuda:BUILD.cublas.bazel",
        packages = ["nvidia-cublas"],
    )
    pinned_wheels(
        name = "cuda_nccl",
        build_file = "//toolchains/cuda:BUILD.nccl.bazel",
        packages = ["nvidia-nccl-cu13"],
    )
    pinned_wheels(
        name = "cuda_cufft",
        build_file = "//toolchains/cuda:BUILD.cufft.bazel",
        packages = ["nvidia-cufft"],
    )
    pinned_wheels(
        name = "cuda_cusolver",
        build_file = "//toolchains/cuda:BUILD.cusolver.bazel",
        packages = [
            "nvidia-cusolver",
            "nvidia-cusparse",
            "nvidia-nvjitlink",
        ],
    )
    pinned_wheels(
        name = "cuda_cudnn",
        build_file = "//toolchains/cuda:BUILD.cudnn.bazel",
        # Linking needs the headers and the library cuDNN's API lives in; the engine
        # libraries it loads at run time are 926 MB unpacked.
        extract_only = [
            "nvidia/cudnn/include/",
            "nvidia/cudnn/lib/libcudnn.so.9",
        ],
        packages = ["nvidia-cudnn-cu13"],
    )
    pinned_wheels(
        name = "cuda_cudnn_engines",
        build_file = "//toolchains/cuda:BUILD.cudnn_engines.bazel",
        packages = ["nvidia-cudnn-cu13"],
    )
    pinned_wheels(
        name = "cuda_cudnn_frontend",
        build_file = "//toolchains/cuda:BUILD.cudnn_frontend.bazel",
        # The headers; the rest of the wheel is the frontend's Python bindings.
        extract_only = ["include/"],
        packages = ["nvidia-cudnn-frontend"],
    )
    pinned_wheels(
        name = "cuda_nvrtc",
        build_file = "//toolchains/cuda:BUILD.nvrtc.bazel",
        # Its header and library; NVRTC loads libnvrtc-builtins only to compile.
        extract_only = [
            "nvidia/cu13/include/nvrtc.h",
            "nvidia/cu13/lib/libnvrtc.so.13",
        ],
        packages = ["nvidia-cuda-nvrtc"],
    )
    pinned_wheels(
        name = "cuda_nvtx",
        build_file = "//toolchains/cuda:BUILD.nvtx.bazel",
        packages = ["nvidia-nvtx"],
    )
    pinned_wheels(
        name = "torch_testing",
        build_file = "//toolchains/wheels:BUILD.torch_testing.bazel",
        lock = "//toolchains/wheels:torch_testing.lock",
        packages = [
            "expecttest",
            "pip",
            "setuptools",
        ],
    )
    pinned_wheels(
        name = "codegen_python",
        build_file = "//toolchains/wheels:BUILD.codegen_python.bazel",
        lock = "//toolchains/wheels:codegen.lock",
        packages = ["pyyaml"],
    )
    pinned_wheels(
        name = "python_coverage",
        build_file = "//toolchains/wheels:BUILD.python_coverage.bazel",
        lock = "//toolchains/wheels:coverage.lock",
        packages = ["coverage"],
    )
    host_gcc_repository(name = "host_gcc")
    host_python_repository(name = "host_python")
    pinned_versions(
        name = "pinned_versions",
        project_version = [m.version for m in module_ctx.modules if m.is_root][0],
    )

hermetic_deps = module_extension(implementation = _hermetic_deps_impl)
