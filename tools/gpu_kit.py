#!/usr/bin/env python3
"""Packs the GPU checks for a machine that has an NVIDIA GPU but no Bazel and no network.

    tools/gpu_kit.py OUT_DIR [--parts N]

builds (-c opt) the real variant's wheel, torch_core's wheel and the torch-free GPU test
binaries, and writes OUT_DIR/kit.tar.zst (split into N parts kit.tar.zst.partNN with --parts, for
transports that limit a file's size), holding:

  debs/     Debian bookworm's Python 3.11 (interpreter and standard library): the pinned
            torch is a cp311 wheel, and the GPU machine's own Python may be another one;
  site/     the pinned torch with its Python dependencies (the @torch repository, without
            headers, C++ tests and stubs), @torch_testing (expecttest), torch_core's and
            torch_cuda's wheels unpacked;
  bin/      //tests/gpu:cuda_engine_test, //tests/gpu:cuda_sort_test, //tests/gpu:cublas_test,
            //tests/gpu:cufft_test, //tests/gpu:cusolver_test, //tests/gpu:cudnn_test,
            //tests/gpu:cudnn_batch_norm_test, //tests/gpu:cudnn_grid_sampler_test,
            //tests/gpu:cudnn_rnn_test, //tests/gpu:cudnn_ctc_loss_test,
            //tests/gpu:cudnn_attention_test,
            //tests/gpu:cuda_ipc_test, //tests/gpu:cuda_vm_test,
            //tests/gpu:nccl_test and //tests/pipeline:cuda_runtime_test, with libc10.so
            beside them.

cuBLAS, cuFFT, cuSOLVER, NVRTC, NCCL and cuDNN are not packed (libcublasLt alone is
550 MB, libcufft 235 MB, libcusolver with cuSPARSE and nvJitLink 550 MB, libnvrtc 141 MB,
libnccl 344 MB, cuDNN 926 MB): tools/gpu_kit_run.sh takes the GPU machine's
libcublas.so.13, libcufft.so.12, libcusolver.so.12 (and the libcusparse.so.12 and
libnvJitLink.so.13 it needs), libnvrtc.so.13, libnccl.so.2 and libcudnn.so.9 (with its
engine libraries) and runs the checks from a checkout of this repository.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BAZEL = REPO / "tools" / "bazel"

TEST_BINARIES = [
    "//tests/gpu:cuda_engine_test",
    "//tests/gpu:cuda_sort_test",
    "//tests/gpu:cublas_test",
    "//tests/gpu:cufft_test",
    "//tests/gpu:cusolver_test",
    "//tests/gpu:cudnn_test",
    "//tests/gpu:cudnn_batch_norm_test",
    "//tests/gpu:cudnn_grid_sampler_test",
    "//tests/gpu:cudnn_rnn_test",
    "//tests/gpu:cudnn_ctc_loss_test",
    "//tests/gpu:cudnn_attention_test",
    "//tests/gpu:cuda_ipc_test",
    "//tests/gpu:cuda_vm_test",
    "//tests/gpu:nccl_test",
    "//tests/pipeline:cuda_runtime_test",
]
WHEELS = ["//third_device/torch_cuda:wheel", "//torch_core:wheel"]
# Release builds, as a published wheel would be: the benchmarks set them against stock CUDA
# torch's, and Bazel's default (fastbuild) compiles the host C++ at -O0.
BUILD_FLAGS = ["--compilation_mode=opt"]
# Python 3.11 from Debian bookworm: enough of it to import torch and run unittest.
PYTHON_DEBS = ["python3.11-minimal", "libpython3.11-minimal", "libpython3.11-stdlib"]
# What the GPU checks never load from the torch wheel (about 500 MB of its 700).
TORCH_SKIPPED = ["torch/include", "torch/test", "torch/share"]
# torch/bin holds C++ test programs and protoc, and the one program `import torch` needs.
TORCH_PROGRAMS = {"torch_shm_manager"}


def bazel(*args: str) -> str:
    result = subprocess.run(
        [str(BAZEL), *args], cwd=REPO, check=True, stdout=subprocess.PIPE, text=True
    )
    return result.stdout.strip()


def output_files(targets: list[str]) -> list[Path]:
    listed = bazel("cquery", *BUILD_FLAGS, "--output=files", " + ".join(targets))
    return [REPO / line for line in listed.splitlines() if line]


def pack_python_repositories(site: Path) -> None:
    """The @torch repository (torch and its dependencies) and @torch_testing (what
    torch.testing._internal imports) into site/."""
    # The build fetched @torch; @torch_testing only a test needs, so a fresh output base
    # may not have it yet: a query of it fetches it.
    bazel("query", "@torch_testing//:all")
    external = Path(bazel("info", "output_base")) / "external"
    torch_repo = external / "_main~hermetic_deps~torch"
    skipped = {torch_repo / path for path in TORCH_SKIPPED}

    def ignore(directory: str, names: list[str]) -> list[str]:
        # The dependencies' own test suites (sympy's, numpy's, ...) and type stubs are never
        # imported: leaving them out keeps the kit small enough to travel in two parts.
        in_dependency = not Path(directory).is_relative_to(torch_repo / "torch")
        return [
            name
            for name in names
            if Path(directory, name) in skipped
            or name in {"__pycache__", "BUILD.bazel", "REPO.bazel"}
            or name.endswith(".pyi")
            or (in_dependency and name == "tests")
            or (directory.endswith("torch/bin") and name not in TORCH_PROGRAMS)
        ]

    for repository in (torch_repo, external / "_main~hermetic_deps~torch_testing"):
        shutil.copytree(repository, site, ignore=ignore, dirs_exist_ok=True)


def pack(kit: Path) -> None:
    bazel("build", *BUILD_FLAGS, *TEST_BINARIES, *WHEELS)
    site = kit / "site"
    pack_python_repositories(site)
    for wheel in output_files(WHEELS):
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(site)
    (kit / "bin").mkdir()
    for binary in output_files(TEST_BINARIES):
        shutil.copy(binary, kit / "bin" / binary.name)
    libc10 = site / "torch" / "lib" / "libc10.so"
    shutil.copy(libc10, kit / "bin" / "libc10.so")
    debs = kit / "debs"
    debs.mkdir()
    subprocess.run(["apt-get", "download", *PYTHON_DEBS], cwd=debs, check=True)


def archive(kit: Path, out_dir: Path, parts: int) -> list[Path]:
    tarball = out_dir / "kit.tar.zst"
    subprocess.run(
        ["tar", "--zstd", "-cf", str(tarball), "-C", str(kit), "."],
        check=True,
        env={**os.environ, "ZSTD_CLEVEL": "19", "ZSTD_NBTHREADS": "0"},
    )
    if parts == 1:
        return [tarball]
    subprocess.run(
        ["split", "-d", "-n", str(parts), tarball.name, tarball.name + ".part"],
        cwd=out_dir,
        check=True,
    )
    tarball.unlink()
    return sorted(out_dir.glob("kit.tar.zst.part*"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--parts", type=int, default=1, help="split the archive in N parts")
    args = parser.parse_args()
    args.out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="gpu_kit.") as scratch:
        kit = Path(scratch)
        pack(kit)
        for path in archive(kit, args.out_dir.resolve(), args.parts):
            print(f"{path}  {path.stat().st_size / 2**20:.1f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
