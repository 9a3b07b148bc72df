"""The example extension built just in time: torch_cuda.cpp_extension.load_inline with the
example's CUDA source as a string, on the simulated variant (the host compiler builds the
.cu, its kernels run on the simulated device); then the JIT cache and a failing build."""

from __future__ import annotations

import os
import unittest
from pathlib import Path

import bias_gelu
import bias_gelu_checks

import torch_cuda.cpp_extension
from torch_core.cpp_extension import ExtensionBuildError

SOURCE = Path(os.environ["BIAS_GELU_SOURCE"]).read_text()
BUILD_ROOT = Path(os.environ["TEST_TMPDIR"]) / "torch_extensions"
os.environ["TORCH_EXTENSIONS_DIR"] = str(BUILD_ROOT)

LIBRARY = torch_cuda.cpp_extension.load_inline("bias_gelu_jit", cpp_sources=[], cuda_sources=SOURCE)
bias_gelu.register_autograd()


class JitBuiltExtension(bias_gelu_checks.BiasGeluChecks):
    def test_the_build_is_cached_by_content_under_torch_extensions_dir(self) -> None:
        self.assertTrue(LIBRARY.startswith(str(BUILD_ROOT / "cuda_simulated" / "bias_gelu_jit")))
        built = os.stat(LIBRARY).st_mtime_ns
        again = torch_cuda.cpp_extension.load_inline("bias_gelu_jit", [], SOURCE)
        self.assertEqual((again, os.stat(again).st_mtime_ns), (LIBRARY, built))

    def test_a_failing_build_says_why_and_leaves_no_library(self) -> None:
        build_dir = BUILD_ROOT / "broken"
        broken = SOURCE.replace("return grad * (cdf + v * pdf);", "return grad * undeclared;")
        with self.assertRaisesRegex(
            ExtensionBuildError, "(?s)Error building extension 'broken'.*undeclared"
        ):
            torch_cuda.cpp_extension.load_inline(
                "broken", [], broken, build_directory=str(build_dir)
            )
        self.assertEqual(sorted(p.name for p in build_dir.iterdir()), ["cuda.cu"])

    def test_the_include_tree_holds_the_extension_api(self) -> None:
        include = Path(torch_cuda.cpp_extension.include_paths()[0])
        self.assertTrue((include / "torch_cuda" / "gpu_kernel.h").is_file())
        self.assertTrue((include / "torch_core" / "csrc" / "extension" / "host_kernel.h").is_file())


if __name__ == "__main__":
    unittest.main()
