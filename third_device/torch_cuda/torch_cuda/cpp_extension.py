"""Building CUDA extensions against torch_cuda: RFC-0045's NewDeviceCppExtension.

    from torch_cuda.cpp_extension import BuildExtension, NewDeviceCppExtension  # setup.py
    torch_cuda.cpp_extension.load_inline("my_ops", cpp_sources, cuda_sources)   # JIT
    torch_cuda.cpp_extension.load("my_ops", ["my_ops.cu"])                      # JIT

An extension's operators (TORCH_LIBRARY) see torch's headers and torch_cuda's extension
API, ``#include <torch_cuda/gpu_kernel.h>``, from the include tree installed in this
package (``include_paths()``). On the real variant its .cu sources are compiled by nvcc
for the architectures torch_cuda was built for; on the simulated variant by the host
compiler, the kernels running on the simulated device. The core is torch_core's
(torch_core.cpp_extension), shared with every backend.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from collections.abc import Sequence
from pathlib import Path

import torch  # noqa: F401 (initialises torch with torch_cuda, which loads _CUDAC)

import torch_cuda
from torch_core import cpp_extension as _core
from torch_cuda.core.version import build_info

# nvcc's options for torch_cuda's extension API, as PyTorch's CUDAExtension passes them.
_NVCC_FLAGS = ("--expt-relaxed-constexpr", "--extended-lambda")


def find_nvcc() -> str:
    """nvcc: $TORCH_CUDA_NVCC, $CUDA_HOME/bin/nvcc, the nvidia-cuda-nvcc wheel's, or PATH's."""
    configured = os.environ.get("TORCH_CUDA_NVCC")
    if configured:
        return configured
    candidates = []
    if os.environ.get("CUDA_HOME"):
        candidates.append(Path(os.environ["CUDA_HOME"]) / "bin" / "nvcc")
    # The nvidia-* wheels share the namespace package `nvidia`; CUDA 13's live in cu13/.
    nvidia = importlib.util.find_spec("nvidia")
    roots = (nvidia.submodule_search_locations or []) if nvidia else []
    candidates += [Path(root) / "cu13" / "bin" / "nvcc" for root in roots]
    for candidate in candidates:
        if candidate.is_file():
            return str(candidate)
    on_path = shutil.which("nvcc")
    if on_path:
        return on_path
    raise RuntimeError(
        "torch_cuda.cpp_extension: no nvcc to compile the extension's .cu sources. Install "
        f"the nvcc of torch_cuda's CUDA {build_info().cuda_version} "
        f"(pip install nvidia-cuda-nvcc=={build_info().cuda_version}.*), or set "
        "TORCH_CUDA_NVCC (or CUDA_HOME) to a CUDA toolkit."
    )


def _gencode_flags(archs: Sequence[str]) -> list[str]:
    """SASS for each architecture torch_cuda carries, PTX for the newest."""
    flags = []
    for arch in archs:
        number = arch.removeprefix("sm_")
        flags += ["-gencode", f"arch=compute_{number},code={arch}"]
    newest = max(archs, key=lambda arch: int(arch.removeprefix("sm_")))
    number = newest.removeprefix("sm_")
    return [*flags, "-gencode", f"arch=compute_{number},code=compute_{number}"]


def _cudart_link_flags(nvcc: str) -> tuple[str, ...]:
    """The static cudart beside nvcc's toolkit, for the extension's kernel launches."""
    lib = Path(nvcc).resolve().parent.parent / "lib"
    return (f"-L{lib}", f"-L{lib / 'x64'}", "-lcudart_static", "-ldl", "-lrt", "-lpthread")


def toolchain() -> _core.DeviceToolchain:
    """How this torch_cuda (its variant) builds an extension."""
    info = build_info()
    includes = (str(Path(torch_cuda.__file__).parent / "include"),)
    if info.variant == "simulated":
        return _core.DeviceToolchain("cuda", "simulated", includes)
    nvcc = find_nvcc()
    return _core.DeviceToolchain(
        "cuda",
        info.variant,
        includes,
        device_compiler=(
            nvcc,
            "-ccbin",
            _core.host_compiler(),
            *_NVCC_FLAGS,
            *_gencode_flags(info.archs),
        ),
        device_link_flags=_cudart_link_flags(nvcc),
    )


_builder = _core.DeviceExtensionBuilder(toolchain)

include_paths = _builder.include_paths
NewDeviceCppExtension = _builder.NewDeviceCppExtension
load = _builder.load
load_inline = _builder.load_inline


def __getattr__(attribute: str) -> object:
    # setuptools is imported only by setup.py builds, not by JIT ones.
    if attribute == "BuildExtension":
        from torch_core.setuptools_build import BuildExtension

        return BuildExtension
    raise AttributeError(f"module 'torch_cuda.cpp_extension' has no attribute {attribute!r}")


# BuildExtension too, from __getattr__.
__all__ = [
    "NewDeviceCppExtension",
    "find_nvcc",
    "include_paths",
    "load",
    "load_inline",
    "toolchain",
]
