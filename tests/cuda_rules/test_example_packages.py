"""The example CUDA package in both spellings (//toolchains/cuda:defs.bzl and
@rules_cuda//cuda:defs.bzl): the two BUILD files differ only in their load(), and each
package's cuda_binary carries what its targets asked for: the rdc library's kernel and the
__device__ function it device-linked from a cuda_objects in sm_90 SASS only (its `archs`),
the .cpp source's kernel as sm_80 SASS and compute_80 PTX (its arch spec), and the binary's
own code for every configured architecture with the PTX the build embeds (the newest's in
opt, the lowest's otherwise)."""

from __future__ import annotations

import os
import subprocess
import unittest
from pathlib import Path

CONFIGURED_ARCHS = os.environ["CONFIGURED_CUDA_ARCHS"].split(",")
CONFIGURED_PTX_ARCH = os.environ["CONFIGURED_CUDA_PTX_ARCH"]
PACKAGES = ("example", "example_rules_cuda")


def runfile(path: str) -> Path:
    return Path(os.environ["TEST_SRCDIR"]) / os.environ["TEST_WORKSPACE"] / path


def cuobjdump(*args: str) -> str:
    return subprocess.run(
        [str(runfile(os.environ["CUOBJDUMP"])), *args], capture_output=True, text=True, check=True
    ).stdout


def kernels_by_arch(binary: Path) -> dict[str, set[str]]:
    """Each SASS architecture's functions, from cuobjdump's resource usage."""
    functions: dict[str, set[str]] = {}
    arch = None
    for line in cuobjdump("--dump-resource-usage", str(binary)).splitlines():
        line = line.strip()
        if line.startswith("arch = "):
            arch = line.removeprefix("arch = ")
            functions.setdefault(arch, set())
        elif line.startswith("Function ") and arch is not None:
            functions[arch].add(line.removeprefix("Function ").rstrip(":"))
    return functions


def archs_with(functions: dict[str, set[str]], fragment: str) -> set[str]:
    return {arch for arch, names in functions.items() if any(fragment in n for n in names)}


def body(build_file: Path) -> list[str]:
    return [line for line in build_file.read_text().splitlines() if not line.startswith("load(")]


class ExamplePackages(unittest.TestCase):
    def test_the_build_files_differ_only_in_their_load(self) -> None:
        ours, theirs = (runfile(f"tests/cuda_rules/{p}/BUILD.bazel") for p in PACKAGES)
        self.assertEqual(body(ours), body(theirs))
        self.assertIn('load("//toolchains/cuda:defs.bzl", ', ours.read_text())
        self.assertIn('load("@rules_cuda//cuda:defs.bzl", ', theirs.read_text())

    def test_each_target_has_its_architectures(self) -> None:
        for package in PACKAGES:
            with self.subTest(package=package):
                binary = runfile(f"tests/cuda_rules/{package}/demo")
                functions = kernels_by_arch(binary)
                saxpy = archs_with(functions, "saxpy_kernel")
                device_math = archs_with(functions, "_Z10scaled_addfff")
                fill = archs_with(functions, "fill_kernel")
                self.assertEqual(saxpy, {"sm_90"})
                # Device-linked: the function from the cuda_objects sits in the same image.
                self.assertEqual(device_math, {"sm_90"})
                self.assertEqual(fill, {"sm_80"})
                self.assertEqual(set(functions), set(CONFIGURED_ARCHS))
                ptx = cuobjdump("--list-ptx", str(binary))
                # cuobjdump names PTX by its SM number: compute_80 is listed as .sm_80.ptx.
                self.assertIn(f".{CONFIGURED_PTX_ARCH.replace('compute_', 'sm_')}.ptx", ptx)
                self.assertIn(".sm_80.ptx", ptx)


if __name__ == "__main__":
    unittest.main()
