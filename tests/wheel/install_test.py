"""A torch_cuda wheel installed into a fresh venv beside the pinned CPU torch.

The wheel as pip sees it: its Requires-Dist pin the torch it was built against (the one
in wheels.lock, whose torch/version.py @torch unpacks) and torch_core's wheel, plus
NVIDIA's library wheels for the real variant; every file is in
RECORD with its hash; every entry carries the fixed date; its manylinux tag covers the
glibc _CUDAC.so needs.

Then installed, with `pip install --no-index --no-deps`, into a venv whose site-packages
holds the pinned torch as its wheel would lay it out (symlinks to @torch's unpacked
wheel; for the real variant nvidia/cu13/lib from @cuda_cublas, @cuda_cufft and
@cuda_cusolver and nvidia/nccl/lib from @cuda_nccl): _CUDAC.so's RUNPATH finds torch's
libraries (and cuBLAS, cuFFT, cuSOLVER and NCCL) there;
`python -c pass` runs the .pth but imports no torch; `import torch` in plain user code gets
CUDA from the wheel's files, with no sitecustomize and no PYTHONPATH; the simulated variant
runs tests/cuda_key's test_user_code.py there unchanged.

Usage (BUILD.bazel): install_test.py --wheel=W --torch_core_wheel=W
  --torch_version_py=@torch's torch/version.py --lock=wheels.lock
  [--user_code=test_user_code.py] [--real]
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import shutil
import subprocess
import sys
import unittest
import zipfile
from pathlib import Path

import wheel_testing
from wheel_testing import Venv, Wheel

parser = argparse.ArgumentParser()
parser.add_argument("--wheel", type=Path, required=True, help="the torch_cuda wheel")
parser.add_argument("--torch_core_wheel", type=Path, required=True)
parser.add_argument("--torch_version_py", required=True, help="@torch//:torch/version.py")
parser.add_argument("--lock", type=Path, required=True, help="wheels.lock")
parser.add_argument("--pip", type=Path, required=True, help="@torch_testing//:pip/__init__.py")
parser.add_argument("--user_code", type=Path, help="tests/cuda_key/test_user_code.py")
parser.add_argument("--real", action="store_true", help="the real variant (NVIDIA's libraries)")
ARGS, UNITTEST_ARGS = parser.parse_known_args()
# Runfiles paths, absolute (not resolved: the runfiles tree is the layout under test), as
# the venv's processes run elsewhere.
for _name in ("wheel", "torch_core_wheel", "lock", "pip", "user_code"):
    if getattr(ARGS, _name) is not None:
        setattr(ARGS, _name, Path(os.path.abspath(getattr(ARGS, _name))))

# torch's libraries _CUDAC.so links, shipped in torch/lib of the torch wheel.
TORCH_LIB_RPATH = "$ORIGIN/torch/lib"
# The real variant's NVIDIA wheels: where each installs its libraries, the pattern of
# their names, and the one _CUDAC.so links (as @cuda//:cublas, :cufft, :nccl and :cudnn lay
# them out).
NVIDIA_LIBRARIES = {
    "nvidia-cublas": ("nvidia/cu13/lib", "libcublas*.so.*", "libcublas.so.13"),
    "nvidia-cufft": ("nvidia/cu13/lib", "libcufft.so.*", "libcufft.so.12"),
    "nvidia-cusolver": ("nvidia/cu13/lib", "libcusolver.so.*", "libcusolver.so.12"),
    # What libcusolver.so.12 needs beside cuBLAS.
    "nvidia-cusparse": ("nvidia/cu13/lib", "libcusparse.so.*", "libcusparse.so.12"),
    "nvidia-nvjitlink": ("nvidia/cu13/lib", "libnvJitLink.so.*", "libnvJitLink.so.13"),
    # What cuDNN's frontend calls.
    "nvidia-cuda-nvrtc": ("nvidia/cu13/lib", "libnvrtc.so.*", "libnvrtc.so.13"),
    "nvidia-nccl-cu13": ("nvidia/nccl/lib", "libnccl*.so.*", "libnccl.so.2"),
    # The library the real variant links; it loads the wheel's others when first used.
    "nvidia-cudnn-cu13": ("nvidia/cudnn/lib", "libcudnn*.so.*", "libcudnn.so.9"),
}


def lock_versions(lock: Path) -> dict[str, str]:
    pins = {}
    for line in lock.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, version = line.split()[0].split("==")
            pins[name.lower()] = version
    return pins


def torch_version(version_py: str) -> str:
    for node in ast.parse(Path(version_py).read_text()).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__version__" for t in node.targets
        ):
            return ast.literal_eval(node.value)
    raise AssertionError(f"no __version__ in {version_py}")


def runfiles_libraries(directory: str, pattern: str, linked: str) -> list[Path]:
    """An unpacked NVIDIA wheel's libraries in the runfiles, where its @cuda//: target
    puts them: at their path, or under Bazel's _solib_<cpu> directory."""
    root = Path(os.environ["TEST_SRCDIR"])
    found = {}
    for glob in (f"*/{directory}/{pattern}", f"*/_solib_*/*/{pattern}"):
        for library in sorted(root.glob(glob)):
            found.setdefault(library.name, library)
    if linked not in found:
        raise AssertionError(f"no {linked} in the runfiles {root}")
    return sorted(found.values())


class WheelInstallTest(unittest.TestCase):
    wheel: Wheel
    core: Wheel
    venv: Venv
    scratch: Path

    @classmethod
    def setUpClass(cls) -> None:
        cls.wheel = Wheel(ARGS.wheel)
        cls.core = Wheel(ARGS.torch_core_wheel)
        cls.scratch = Path(os.environ.get("TEST_TMPDIR", "/tmp")) / "wheel_install"
        shutil.rmtree(cls.scratch, ignore_errors=True)
        cls.venv = Venv(cls.scratch / "venv", cls.scratch / "work", ARGS.pip.parents[1])
        # The pinned torch and its import-time deps, laid out as pip would install them.
        cls.venv.link_unpacked_wheel(wheel_testing.unpacked_wheel_root(ARGS.torch_version_py, 2))
        if ARGS.real:
            for directory, pattern, linked in NVIDIA_LIBRARIES.values():
                lib = cls.venv.site / directory
                lib.mkdir(parents=True, exist_ok=True)
                for library in runfiles_libraries(directory, pattern, linked):
                    (lib / library.name).symlink_to(library)
        cls.venv.pip_install([ARGS.torch_core_wheel, ARGS.wheel])

    # --- the wheel as built --------------------------------------------------------------

    def test_requires_pin_the_torch_it_was_built_against(self) -> None:
        pins = lock_versions(ARGS.lock)
        built_against = torch_version(ARGS.torch_version_py)
        self.assertEqual(pins["torch"], built_against, "wheels.lock and @torch disagree")
        expected = [f"torch=={built_against}", f"torch_core=={self.core.metadata()['Version']}"]
        if ARGS.real:
            expected += [f"{name}=={pins[name]}" for name in NVIDIA_LIBRARIES]
        self.assertEqual(sorted(self.wheel.requires()), sorted(expected),
                         f"{self.wheel.path.name}: METADATA Requires-Dist")
        self.assertEqual(self.core.requires(), [f"torch=={built_against}"],
                         f"{self.core.path.name}: METADATA Requires-Dist")

    def test_name_version_and_tags(self) -> None:
        metadata = self.wheel.metadata()
        self.assertEqual(metadata["Name"], "torch_cuda")
        self.assertEqual(metadata["Version"].endswith("+simulated"), not ARGS.real)
        name, version, python, abi, platform = self.wheel.path.name[: -len(".whl")].split("-")
        self.assertEqual((name, version), ("torch_cuda", metadata["Version"]))
        self.assertEqual(self.wheel.tags(), [f"{python}-{abi}-{platform}"])
        self.assertEqual((python, abi), (f"cp{sys.version_info[0]}{sys.version_info[1]}",) * 2)

    def test_record_lists_every_file_with_its_hash(self) -> None:
        for wheel in (self.wheel, self.core):
            self.assertEqual(wheel.record_problems(), [], f"{wheel.path.name}: RECORD")

    def test_no_timestamps(self) -> None:
        for wheel in (self.wheel, self.core):
            self.assertEqual(wheel.bad_dates(), [], f"{wheel.path.name}: entry dates")

    def test_layout(self) -> None:
        names = set(self.wheel.files)
        for expected in ("_CUDAC.so", "_torch_cuda_activate.py", "torch_cuda_activate.pth",
                         "torch_cuda/__init__.py", "torch_cuda/_loader.py"):
            self.assertIn(expected, names, f"{self.wheel.path.name} lacks {expected}")
        self.assertEqual(self.wheel.files["torch_cuda_activate.pth"].strip(),
                         b"import _torch_cuda_activate")
        stray = sorted(n for n in names if not re.match(
            r"(_CUDAC\.so|_torch_cuda_activate\.py|torch_cuda_activate\.pth|torch_cuda/|"
            r"torch_cuda-[^/]+\.dist-info/)", n))
        self.assertEqual(stray, [], "files outside torch_cuda's layout")
        self.assertTrue(all(n.startswith(("torch_core/", "torch_core-")) for n in self.core.files))

    def test_extension_runpath_and_glibc(self) -> None:
        library = self.scratch / "_CUDAC.so"
        with zipfile.ZipFile(self.wheel.path) as archive:
            library.write_bytes(archive.read("_CUDAC.so"))
        _needed, runpath = wheel_testing.dynamic_section(library)
        self.assertIn(TORCH_LIB_RPATH, runpath, "_CUDAC.so cannot find torch/lib when installed")
        if ARGS.real:
            for name, (directory, _pattern, _linked) in NVIDIA_LIBRARIES.items():
                self.assertIn(f"$ORIGIN/{directory}", runpath, f"_CUDAC.so cannot find {name}")
        platform = self.wheel.tags()[0].split("-")[2]
        newest = max(wheel_testing.glibc_versions(library))
        self.assertLessEqual(newest, wheel_testing.manylinux_glibc(platform),
                             f"_CUDAC.so needs GLIBC_{newest[0]}.{newest[1]}, "
                             f"newer than its tag {platform} promises")

    # --- installed -------------------------------------------------------------------------

    def test_installed_record(self) -> None:
        for distribution in ("torch_cuda", "torch_core"):
            self.assertEqual(self.venv.installed_record_problems(distribution), [],
                             f"installed {distribution}'s RECORD")

    def test_linker_finds_torch_in_site_packages(self) -> None:
        library = self.venv.site / "_CUDAC.so"
        needed, _runpath = wheel_testing.dynamic_section(library)
        resolved = self.venv.ldd(library)
        self.assertEqual([n for n in needed if resolved.get(n, "not found") == "not found"], [],
                         f"ldd {library}: {resolved}")
        for soname in needed:
            if (self.venv.site / "torch" / "lib" / soname).exists():
                self.assertEqual(resolved[soname], str(self.venv.site / "torch/lib" / soname))
            for directory, _pattern, linked in NVIDIA_LIBRARIES.values():
                if soname == linked:
                    self.assertEqual(resolved[soname], str(self.venv.site / directory / soname))
        self.assertIn("libtorch_cpu.so", needed)

    def test_python_without_torch_imports_no_torch(self) -> None:
        result = self.venv.run("pass", "-X", "importtime")
        imported = [line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines()
                    if line.startswith("import time:") and "|" in line]
        self.assertIn("_torch_cuda_activate", imported, "the .pth did not run at start-up")
        torch_modules = [m for m in imported if m == "torch" or m.startswith(("torch.", "_CUDAC"))]
        self.assertEqual(torch_modules, [], "`python -c pass` imported torch or _CUDAC")

    def test_user_code_gets_cuda_from_the_wheel(self) -> None:
        found = self.venv.probe()
        site = str(self.venv.site) + os.sep
        for module in ("torch", "torch_cuda", "_CUDAC", "torch_core", "activate"):
            self.assertTrue(str(found[module]).startswith(site),
                            f"{module} came from {found[module]}, not the venv")
        self.assertIsNone(found["sitecustomize"])
        self.assertEqual(found["state"], "active")
        self.assertRegex(str(found["version_cuda"]), r"^\d+\.\d+$")
        if not ARGS.real:
            self.assertTrue(found["is_available"])
        for distribution, requirements in found["requirements"].items():
            unmet = [r for r in requirements if not r[2]]
            # The NVIDIA wheels are laid out by files here, not installed with metadata.
            unmet = [r for r in unmet if not r[0].startswith(tuple(NVIDIA_LIBRARIES))]
            self.assertEqual(unmet, [], f"{distribution}'s Requires-Dist not met in the venv")

    def test_an_extension_builds_against_the_installed_include_tree(self) -> None:
        if ARGS.real:
            self.skipTest("a real-variant build needs nvcc, which this venv does not have")
        # What a user of the installed wheel runs: a JIT build of a gpu_kernel functor.
        result = self.venv.run(
            EXTENSION_USER_CODE,
            TORCH_SIM_DEVICE_COUNT="1",
            TORCH_EXTENSIONS_DIR=str(self.scratch / "torch_extensions"),
        )
        self.assertEqual(result.stdout.strip().splitlines()[-1], "[2.0, 4.0, 6.0]")
        include = self.venv.site / "torch_cuda" / "include"
        self.assertTrue((include / "torch_cuda" / "gpu_kernel.h").is_file())
        self.assertTrue((include / "c10" / "cuda" / "impl" / "cuda_cmake_macros.h").is_file())

    def test_unmodified_user_code(self) -> None:
        if ARGS.user_code is None:
            self.skipTest("the real variant needs a GPU for test_user_code.py")
        # A copy, so that nothing beside the file in the runfiles is on sys.path.
        work = self.scratch / "user_code"
        work.mkdir(exist_ok=True)
        script = work / ARGS.user_code.name
        shutil.copyfile(ARGS.user_code, script)
        result = subprocess.run(
            [str(self.venv.python), str(script)], cwd=work, capture_output=True, text=True,
            env=self.venv.env(TORCH_SIM_DEVICE_COUNT="2"), check=False,
        )
        self.assertEqual(result.returncode, 0,
                         f"{ARGS.user_code.name} failed in the venv:\n"
                         f"{wheel_testing.tail(result.stderr, 80)}")
        self.assertRegex(result.stderr, r"Ran \d+ tests")


# An operator doubling a CUDA tensor, built just in time against the installed torch_cuda.
EXTENSION_SOURCE = """
#include <ATen/TensorIterator.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>
#include <torch_cuda/gpu_kernel.h>

struct Twice {
  C10_HOST_DEVICE float operator()(float x) const { return 2 * x; }
};

at::Tensor twice(const at::Tensor& x) {
  const c10::DeviceGuard guard(x.device());
  at::TensorIterator iter =
      at::TensorIteratorConfig().add_owned_output(at::Tensor()).add_const_input(x).build();
  torch_cuda::gpu_kernel(iter, Twice{});
  return iter.output();
}

TORCH_LIBRARY(venv_ext, m) { m.def("twice(Tensor x) -> Tensor"); }
TORCH_LIBRARY_IMPL(venv_ext, CUDA, m) { m.impl("twice", &twice); }
"""

EXTENSION_USER_CODE = f"""
import torch
import torch_cuda.cpp_extension

torch_cuda.cpp_extension.load_inline("venv_ext", [], {EXTENSION_SOURCE!r})
print(torch.ops.venv_ext.twice(torch.tensor([1.0, 2.0, 3.0], device="cuda")).cpu().tolist())
"""


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], *UNITTEST_ARGS], verbosity=2)
