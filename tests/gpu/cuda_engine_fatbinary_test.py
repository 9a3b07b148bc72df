"""The CUDA engine's kernels are in the binary for every configured architecture.

cuobjdump (the hermetic one from @cuda) reads the fatbinary of //tests/gpu:cuda_engine_test,
which links //third_device/torch_cuda/torch_cuda/csrc:engine_kernels: SASS for each
//toolchains/cuda:archs entry, the PTX the build embeds, and the engine's kernel templates
instantiated for its functors.
"""

from __future__ import annotations

import os
import subprocess
import sys
import unittest
from pathlib import Path

CONFIGURED_ARCHS = os.environ["CONFIGURED_CUDA_ARCHS"].split(",")
# The PTX the build embeds: the newest's in opt, the lowest's otherwise (cuda_archs.bzl).
CONFIGURED_PTX_ARCH = os.environ["CONFIGURED_CUDA_PTX_ARCH"]


def runfile(path: str) -> Path:
    return Path(os.environ["TEST_SRCDIR"]) / os.environ["TEST_WORKSPACE"] / path


def cuobjdump(*flags: str) -> str:
    tool, binary = sys.argv[1], sys.argv[2]
    return subprocess.run(
        [runfile(tool), *flags, runfile(binary)], capture_output=True, text=True, check=True
    ).stdout


class EngineKernelsFatbinary(unittest.TestCase):
    def test_sass_for_every_arch_and_the_configured_ptx(self) -> None:
        listing = cuobjdump("--list-elf")
        for arch in CONFIGURED_ARCHS:
            self.assertIn(f".{arch}.", listing, f"no {arch} SASS:\n{listing}")
        # cuobjdump names PTX by its SM number: compute_80 is listed as ".sm_80.".
        ptx = cuobjdump("--list-ptx")
        self.assertIn(f".{CONFIGURED_PTX_ARCH.replace('compute_', 'sm_')}.", ptx, ptx)

    def test_every_kernel_for_every_arch(self) -> None:
        usage = cuobjdump("--dump-resource-usage")
        # Per fatbinary entry: "arch = sm_XY", then " Function <mangled name>:" lines.
        sections: dict[str, list[str]] = {}
        arch = None
        for line in usage.splitlines():
            if line.strip().startswith("arch = "):
                arch = line.strip().removeprefix("arch = ")
            if line.strip().startswith("Function ") and arch is not None:
                sections.setdefault(arch, []).append(line.strip())
        for arch in CONFIGURED_ARCHS:
            functions = "\n".join(sections.get(arch, []))
            for kernel in ("elementwise_kernel", "reduce_kernel", "index_kernel"):
                self.assertIn(kernel, functions, f"no {kernel} for {arch}:\n{usage[:4000]}")
            # The functors of the test's calls name the instantiations (mangled: 3Add, ...);
            # the linker keeps only the groups the test calls.
            for functor in ("3Add", "2Gt", "9SumReduce", "16ArgExtremeReduce", "12StdVarReduce"):
                self.assertIn(functor, functions, f"no {functor} kernel for {arch}")

if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
