"""The example extension for the real variant, on a machine without a GPU: built by
torch_cuda.cpp_extension.load with the hermetic nvcc (as a user's JIT build runs it) and by
the Bazel macro, each carrying its kernels for every configured architecture; the JIT
build's library loads beside the real _CUDAC (its torch_cuda symbols resolve there) and
registers its CUDA kernels. Running them needs a GPU (the kit on a GPU machine)."""

from __future__ import annotations

import os
import subprocess
import unittest
from pathlib import Path

import torch

import torch_cuda.cpp_extension

CONFIGURED_ARCHS = os.environ["CONFIGURED_CUDA_ARCHS"].split(",")


def runfile_path(path: str) -> Path:
    return Path(os.environ["TEST_SRCDIR"]) / os.environ["TEST_WORKSPACE"] / path


def runfile(variable: str) -> Path:
    return runfile_path(os.environ[variable])


def header_dir(variable: str) -> str:
    """The directory of the headers a $(rootpaths) variable lists."""
    return str(runfile_path(os.environ[variable].split()[0]).parent)


os.environ["TORCH_CUDA_NVCC"] = str(runfile("NVCC"))
os.environ["TORCH_EXTENSIONS_DIR"] = str(Path(os.environ["TEST_TMPDIR"]) / "torch_extensions")
JIT_LIBRARY = torch_cuda.cpp_extension.load("bias_gelu_real", [runfile("BIAS_GELU_SOURCE")])
# Stock's ATen/cuda/CUDAContext.h includes cuBLAS's, cuSPARSE's and cuSOLVER's headers:
# installed, the nvidia-* wheels put them beside nvcc's (nvidia/cu13/include); here they
# are repositories of their own.
STOCK_STYLE_LIBRARY = torch_cuda.cpp_extension.load(
    "stock_style",
    [runfile("STOCK_STYLE_SOURCE")],
    extra_include_paths=[header_dir("CUBLAS_HEADERS"), header_dir("CUSOLVER_HEADERS")],
)

# Built against the stable ABI alone: its CUDA entries resolve in the real _CUDAC too.
torch_cuda.cpp_extension.load(
    "stable_cuda",
    [runfile("STABLE_ABI_SOURCE")],
    extra_cflags=["-DTORCH_STABLE_ONLY", "-DUSE_CUDA"],
)


def kernels_by_arch(library: Path | str) -> dict[str, str]:
    """cuobjdump's resource usage: the kernel names of each architecture's SASS."""
    usage = subprocess.run(
        [runfile("CUOBJDUMP"), "--dump-resource-usage", str(library)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    sections: dict[str, list[str]] = {}
    arch = None
    for line in usage.splitlines():
        line = line.strip()
        if line.startswith("arch = "):
            arch = line.removeprefix("arch = ")
        elif line.startswith("Function ") and arch is not None:
            sections.setdefault(arch, []).append(line)
    return {arch: "\n".join(functions) for arch, functions in sections.items()}


class RealVariantExtension(unittest.TestCase):
    def test_the_jit_build_registers_cuda_kernels_beside_the_real_cudac(self) -> None:
        self.assertEqual(torch_cuda.build_info().variant, "cudart")
        for op in ("bias_gelu", "bias_gelu_backward"):
            self.assertTrue(
                torch._C._dispatch_has_kernel_for_dispatch_key(f"bias_gelu_ext::{op}", "CUDA")
            )

    def test_an_extension_written_for_stock_cuda_torch_builds_and_loads_unchanged(self) -> None:
        # Loaded with RTLD_NOW: every c10::cuda / at::cuda symbol it uses resolved in the
        # real _CUDAC. Without a GPU, c10::cuda::device_count() answers 0 as stock's does.
        self.assertEqual(torch.ops.stock_style.cuda_device_count(), torch.cuda.device_count())
        self.assertTrue(
            torch._C._dispatch_has_kernel_for_dispatch_key("stock_style::scale", "CUDA")
        )
        for arch in CONFIGURED_ARCHS:
            self.assertIn("scale_kernel", kernels_by_arch(STOCK_STYLE_LIBRARY).get(arch, ""))

    def test_a_stable_abi_extension_loads_beside_the_real_cudac(self) -> None:
        self.assertTrue(
            torch._C._dispatch_has_kernel_for_dispatch_key("stable_cuda::current_stream", "CUDA")
        )

    def test_both_builds_carry_the_functors_for_every_architecture(self) -> None:
        for library in (JIT_LIBRARY, runfile("BAZEL_LIBRARY")):
            kernels = kernels_by_arch(library)
            for arch in CONFIGURED_ARCHS:
                functions = kernels.get(arch, "")
                for functor in ("8BiasGelu", "16BiasGeluBackward"):
                    self.assertIn(functor, functions, f"{library}: no {functor} for {arch}")


if __name__ == "__main__":
    unittest.main()
