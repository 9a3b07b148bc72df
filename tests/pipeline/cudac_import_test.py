"""The vertical slice: _CUDAC, built by Bazel with the hermetic nvcc, beside stock CPU torch."""

from __future__ import annotations

import os
import subprocess
import sys
import unittest
from pathlib import Path

import torch

import _CUDAC
import torch_cuda

# The configured architectures (//toolchains/cuda:archs), passed by the BUILD file.
CONFIGURED_ARCHS = os.environ["CONFIGURED_CUDA_ARCHS"].split(",")
# The PTX the build embeds: the newest's in opt, the lowest's otherwise (cuda_archs.bzl).
CONFIGURED_PTX_ARCH = os.environ["CONFIGURED_CUDA_PTX_ARCH"]
# "1" when this test was built with --stamp (--config=stamp), from the BUILD file.
STAMPED = os.environ["BUILT_WITH_STAMP"] == "1"


def runfile(path: str) -> Path:
    return Path(os.environ["TEST_SRCDIR"]) / os.environ["TEST_WORKSPACE"] / path


def cuobjdump(flag: str) -> str:
    tool, library = sys.argv[1], sys.argv[2]
    return subprocess.run(
        [runfile(tool), flag, runfile(library)], capture_output=True, text=True, check=True
    ).stdout


class CudacBesideCpuTorch(unittest.TestCase):
    def test_torch_is_the_stock_cpu_wheel(self) -> None:
        # torch_cuda (real variant) is active, as installed: torch.version.cuda is its
        # CUDA; without a GPU here, CUDA is reported unavailable, cleanly.
        self.assertEqual(torch.__version__, "2.13.0+cpu")
        self.assertEqual(torch.version.cuda, _CUDAC.cuda_version)
        self.assertEqual(torch.cuda.is_available(), _CUDAC.device_count() > 0)

    def test_reports_its_cuda_build(self) -> None:
        info = torch_cuda.build_info()
        self.assertEqual(info.cuda_version, "13.5")
        self.assertEqual(info.cudart_version // 1000, 13)
        self.assertEqual(list(info.archs), CONFIGURED_ARCHS)
        self.assertEqual(info.device_type, "cuda")
        self.assertTrue(torch_cuda.backends.is_built())

    def test_build_info_names_what_it_was_built_from(self) -> None:
        info = _CUDAC.build_info()
        # Read from the pinned wheel's torch/version.py at build time: the torch imported
        # here is the one _CUDAC was compiled against.
        self.assertEqual(info["torch_version"], torch.__version__)
        self.assertEqual(info["cuda_version"], _CUDAC.cuda_version)
        self.assertEqual(info["cudart_version"], _CUDAC.cudart_version)
        self.assertEqual(info["archs"], CONFIGURED_ARCHS)
        if STAMPED:
            self.assertRegex(info["git_revision"], r"^[0-9a-f]{40}(-dirty)?$")
        else:
            # An unstamped build carries no revision, so it is the same from any checkout.
            self.assertEqual(info["git_revision"], "unstamped")

    def test_kernels_carry_every_configured_arch(self) -> None:
        listing = cuobjdump("--list-elf")
        for arch in CONFIGURED_ARCHS:
            self.assertIn(f".{arch}.", listing, f"no {arch} SASS in _CUDAC.so:\n{listing}")
        ptx = cuobjdump("--list-ptx")
        # compute_80 -> the listing's ".sm_80." (cuobjdump names PTX by its SM number).
        expected = CONFIGURED_PTX_ARCH.replace("compute_", "sm_")
        self.assertIn(f".{expected}.", ptx, f"no {CONFIGURED_PTX_ARCH} PTX:\n{ptx}")

    def test_kernel_symbol_is_in_the_fatbinary(self) -> None:
        self.assertIn("add_f32_kernel", cuobjdump("--dump-resource-usage"))


class DeviceQueries(unittest.TestCase):
    def test_device_count_matches_availability(self) -> None:
        count = _CUDAC.device_count()
        reason = _CUDAC.unavailable_reason()
        if count == 0:
            # No GPU or driver: reported cleanly, with the reason, never raised.
            self.assertTrue(reason, "device_count() is 0 but no reason was given")
            self.assertFalse(torch_cuda.core.is_available())
            print(f"no CUDA device here ({reason}); GPU round trip not run", file=sys.stderr)
        else:
            self.assertEqual(reason, "")
            self.assertLess(_CUDAC.device_add_round_trip(0, 1 << 20), 1e-4)

    def test_invalid_device_index_names_the_valid_range(self) -> None:
        count = _CUDAC.device_count()
        with self.assertRaisesRegex(IndexError, f"invalid CUDA device index {count}"):
            _CUDAC.get_device_properties(count)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
