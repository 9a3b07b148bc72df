"""torch_cuda_extension: a C++/CUDA extension against torch_cuda, built in this repository.

The Bazel spelling of what torch_cuda.cpp_extension builds outside it (setuptools and JIT),
from the same sources, for both variants:

    <name>.so            the real variant: .cu sources compiled by the hermetic nvcc for
                         every configured architecture, .cc/.cpp by the host compiler
    <name>_simulated.so  the simulated variant: every source compiled by the host compiler
                         (a .cu as C++), the functors of <torch_cuda/gpu_kernel.h> running
                         on the simulated device's host engine

Load either with torch.ops.load_library() once torch_cuda is active (import torch). The
library links torch's libraries and takes torch_cuda's symbols from the _CUDAC already
loaded, never a copy of them (//toolchains/extension:cc_headers.bzl); the real one links
its own static cudart for its kernel launches, whose streams are the driver's.
"""

load("@rules_cc//cc:defs.bzl", "cc_binary")
load("//toolchains/cuda:defs.bzl", "CUDA_CAPABLE", "cuda_library")
load("//toolchains/extension:cc_headers.bzl", "cc_headers")

_CSRC = "//third_device/torch_cuda/torch_cuda/csrc"

# c10's complex and half arithmetic is constexpr host code that device functors call, as
# in PyTorch's own CUDA build and its CUDAExtension.
_NVCC_COPTS = ["--expt-relaxed-constexpr"]

def torch_cuda_extension(name, srcs, deps = [], copts = [], cuda_copts = [], visibility = None, **kwargs):
    """Builds `name`.so (real variant) and `name`_simulated.so (simulated variant).

    Args:
      name: the extension's name.
      srcs: its .cu, .cc and .cpp sources (file names in this package).
      deps: further cc deps (headers of the extension's own).
      copts: options for the host compiler.
      cuda_copts: further options for nvcc (real variant).
      visibility: of both libraries.
      **kwargs: passed to both cc_binary targets (tags, testonly, ...).
    """
    cuda_sources = [src for src in srcs if src.endswith(".cu")]
    host_sources = [src for src in srcs if not src.endswith(".cu")]
    testonly = kwargs.get("testonly", False)

    cc_headers(
        name = name + "_api",
        testonly = testonly,
        deps = [_CSRC + ":extension_api"],
    )

    # The simulated variant compiles each .cu as C++ (Bazel's C++ rules take no .cu).
    as_cpp = [name + "_simulated/" + src + ".cc" for src in cuda_sources]
    native.genrule(
        name = name + "_cu_as_cpp",
        testonly = testonly,
        srcs = cuda_sources,
        outs = as_cpp,
        cmd = " && ".join([
            "cp $(location %s) $(location %s)" % (src, out)
            for src, out in zip(cuda_sources, as_cpp)
        ]) or "true",
    )
    cc_binary(
        name = name + "_simulated.so",
        srcs = host_sources + as_cpp,
        copts = copts,
        linkshared = True,
        visibility = visibility,
        deps = deps + [
            ":" + name + "_api",
            "@torch//:torch_cpu",
        ],
        **kwargs
    )

    cc_headers(
        name = name + "_cuda_api",
        testonly = testonly,
        target_compatible_with = CUDA_CAPABLE,
        deps = [_CSRC + ":extension_api_cuda"],
    )
    cuda_library(
        name = name + "_kernels",
        testonly = testonly,
        srcs = cuda_sources,
        copts = _NVCC_COPTS + cuda_copts,
        host_copts = copts,
        deps = deps + [":" + name + "_cuda_api"],
        # The operators register from static initialisers (TORCH_LIBRARY) nothing
        # references; without it the linker would drop them from the library.
        alwayslink = True,
    )
    cc_binary(
        name = name + ".so",
        srcs = host_sources,
        copts = copts,
        linkshared = True,
        target_compatible_with = CUDA_CAPABLE,
        visibility = visibility,
        deps = deps + [
            ":" + name + "_api",
            ":" + name + "_kernels",
            "@cuda//:cudart_static",
            "@torch//:torch_cpu",
        ],
        **kwargs
    )
