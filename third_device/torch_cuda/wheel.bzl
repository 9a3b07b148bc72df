"""torch_cuda's wheels: one layout for the real and the simulated variant.

Installed, a wheel puts in site-packages (beside torch/, and nvidia/ for cuBLAS):

    torch_cuda/                  the Python package (:torch_cuda_py_lib)
    _CUDAC.so                    the variant's extension module, imported as `_CUDAC`
    _torch_cuda_activate.py      activation at interpreter start (no torch import)
    torch_cuda_activate.pth      `import _torch_cuda_activate`, run by `site`

torch_core's Python package is a wheel of its own (//torch_core:wheel), required at this
project's version: every backend shares it (its torch._C finder is one per interpreter),
so no backend wheel may carry a copy.
"""

load("@pinned_versions//:versions.bzl", "PROJECT_VERSION")
load("//toolchains/python:py_wheel.bzl", "py_wheel")
load("//toolchains/wheels:requirements.bzl", "pinned_requirement")

# _CUDAC.so sits at the top of site-packages; these RUNPATH entries find the libraries it
# links from there: torch's (libc10, libtorch_cpu, libtorch_python, libgomp from the
# pinned torch wheel) and, for the real variant, cuBLAS, cuFFT and cuSOLVER (the
# nvidia-cublas, nvidia-cufft and nvidia-cusolver wheels install libcublas.so.13,
# libcufft.so.12 and libcusolver.so.12 in nvidia/cu13/lib, where nvidia-cusparse and
# nvidia-nvjitlink put the libraries libcusolver.so.12 needs, and nvidia-cuda-nvrtc
# libnvrtc.so.13, which cuDNN's frontend calls), NCCL (nvidia-nccl-cu13:
# nvidia/nccl/lib/libnccl.so.2) and cuDNN (nvidia-cudnn-cu13: nvidia/cudnn/lib/libcudnn.so.9
# beside the engine libraries it loads).
# Bazel's own runfiles entries stay first; in
# site-packages they name nothing and the loader moves on. (torch_cuda._loader also
# preloads torch's libraries from the imported torch, so the torch found is the one
# `import torch` chose even if another sits elsewhere.)
TORCH_LIB_RPATH = ["-Wl,-rpath,$$ORIGIN/torch/lib"]
CU13_LIB_RPATH = ["-Wl,-rpath,$$ORIGIN/nvidia/cu13/lib"]
NCCL_RPATH = ["-Wl,-rpath,$$ORIGIN/nvidia/nccl/lib"]
CUDNN_RPATH = ["-Wl,-rpath,$$ORIGIN/nvidia/cudnn/lib"]

# cp311: the pinned torch wheel's (and @host_python's interpreter's). The platform tag is
# the newest glibc symbol version the _CUDAC.so builds need (2.34: the toolchain's glibc,
# pthread/dl symbols moved into libc there), which tests/wheel checks; so pip refuses the
# wheel where the import would fail.
PYTHON_TAG = "cp311"
PLATFORM = "manylinux_2_34_x86_64"

def torch_cuda_wheel(name, extension, local_version = "", requires = [], **kwargs):
    """A torch_cuda wheel over one variant's _CUDAC.so.

    Args:
      name: the target name.
      extension: the variant's `_CUDAC.so` (cc_binary) label.
      local_version: a PEP 440 local label that names the variant, or "".
      requires: Requires-Dist beyond torch and torch_core.
      **kwargs: passed to py_wheel (tags, visibility, ...).
    """
    py_wheel(
        name = name,
        distribution = "torch_cuda",
        version = PROJECT_VERSION + ("+" + local_version if local_version else ""),
        summary = "PyTorch's CUDA backend, decoupled from core (RFC-0045), for the stock CPU torch",
        python_tag = PYTHON_TAG,
        abi = PYTHON_TAG,
        platform = PLATFORM,
        # The torch _CUDAC.so is compiled against, exactly (its C++ ABI; torch_patches
        # refuses any other at import), and torch_core's Python at this build's version.
        requires = [
            pinned_requirement("torch"),
            "torch_core==" + PROJECT_VERSION,
        ] + requires,
        deps = [
            extension,
            "//third_device/torch_cuda:extension_include_tree",
            "//third_device/torch_cuda:torch_cuda_activate.pth",
            "//third_device/torch_cuda:torch_cuda_py_lib",
        ],
        # The first match is stripped: the extension's package before torch_cuda's.
        strip_path_prefixes = [
            native.package_relative_label(extension).package + "/",
            "third_device/torch_cuda/",
        ],
        **kwargs
    )
