#!/usr/bin/env python3
"""What one CUDA source costs nvcc under each compilation mode's architecture scheme.

The compile action of SOURCE is taken from `bazel aquery` twice: as fastbuild builds it
(every SASS from the lowest architecture's PTX) and with opt's -gencode flags (a PTX per
major version, the newest embedded; toolchains/cuda/cuda_archs.bzl). Everything else on the
command line is fastbuild's, so the two differ in the architecture scheme alone. Each is
rerun from the execution root with nvcc's `--time` (the sources and the pinned toolchain
are there once the script has built the target), alternately, RUNS times; the table gives the
median wall time and the median seconds per phase: cicc (nvcc's front end, once per
virtual architecture), ptxas (once per SASS) and the host side (preprocessing, cudafe++,
gcc), with the ratio against the per-major scheme measured in the same run.

Usage:
  python3 benchmarks/build/nvcc_phases.py [--runs N] [--source PATH] [--target LABEL]
"""

from __future__ import annotations

import argparse
import collections
import csv
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Beside this script (its directory is on sys.path when it runs).
from compile_profile import bazel_output

DEFAULT_TARGET = "//third_device/torch_cuda/torch_cuda/csrc:engine_kernels"
DEFAULT_SOURCE = "third_device/torch_cuda/torch_cuda/csrc/aten/engine/elementwise_binary.cu"


def compile_argv(target: str, source: str, mode: str) -> list[str]:
    """nvcc's argv for `source` in `mode`, without the rules' wrapper (nvcc_unused_inputs.sh
    runs argv[1] after its three file arguments)."""
    query = f'mnemonic("CudaCompile", {target})'
    graph = json.loads(
        bazel_output("aquery", f"--compilation_mode={mode}", query, "--output=jsonproto")
    )
    for action in graph.get("actions", []):
        argv = action["arguments"]
        if source in argv:
            return argv[1:2] + argv[5:]
    raise SystemExit(f"no CudaCompile action of {target} compiles {source} in {mode}")


def gencode(argv: list[str]) -> list[str]:
    return [a for a in argv if a.startswith("-gencode")]


def phase_of(row: dict[str, str]) -> str:
    phase = row["phase name"].strip()
    if phase.startswith("cicc"):
        return "cicc"
    if phase.startswith("ptxas"):
        return "ptxas"
    return "host"


def run_once(
    argv: list[str], workdir: Path, name: str, execroot: Path
) -> tuple[float, dict[str, float]]:
    """Wall seconds and seconds per phase of one compile into `workdir`."""
    argv = list(argv)
    argv[argv.index("-o") + 1] = str(workdir / f"{name}.o")
    times = workdir / f"{name}.csv"
    times.unlink(missing_ok=True)
    started = time.monotonic()
    result = subprocess.run(
        [*argv, "--time", str(times)], cwd=execroot, capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        raise SystemExit(f"nvcc failed in {execroot}:\n{result.stderr[-2000:]}")
    wall = time.monotonic() - started
    phases: dict[str, float] = collections.defaultdict(float)
    with times.open() as stream:
        reader = csv.reader(stream)
        header = [h.strip() for h in next(reader)]
        for values in reader:
            row = dict(zip(header, values, strict=False))
            phases[phase_of(row)] += float(row["metric"]) / 1000
    return wall, phases


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--source", default=DEFAULT_SOURCE)
    parser.add_argument("--target", default=DEFAULT_TARGET)
    args = parser.parse_args()

    execroot = Path(bazel_output("info", "execution_root").strip())
    built = compile_argv(args.target, args.source, "fastbuild")
    per_major = [a for a in built if not a.startswith("-gencode")]
    per_major += gencode(compile_argv(args.target, args.source, "opt"))
    schemes = {"PTX per major version (opt)": per_major, "one PTX (fastbuild, dbg)": built}
    for name, argv in schemes.items():
        print(f"{name}: {' '.join(gencode(argv))}")
    # Last, so that the execution root holds every input of the fastbuild compile (a command
    # that runs no action, or another target's, plants only what it needs).
    bazel_output("build", args.target)

    results: dict[str, list[tuple[float, dict[str, float]]]] = {name: [] for name in schemes}
    with tempfile.TemporaryDirectory(prefix="nvcc_phases.") as workdir:
        for run in range(args.runs):
            for number, (name, argv) in enumerate(schemes.items()):
                wall, phases = run_once(argv, Path(workdir), f"scheme{number}", execroot)
                results[name].append((wall, phases))
                print(f"nvcc_phases: run {run + 1}, {name}: {wall:.1f} s", flush=True)

    baseline = statistics.median(wall for wall, _ in results["PTX per major version (opt)"])
    print(f"\n{args.source}, medians of {args.runs} runs:\n")
    print("| scheme | wall s | min s | max s | cicc s | ptxas s | host s | vs per-major |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, runs in results.items():
        walls = [wall for wall, _ in runs]
        phase = {
            p: statistics.median(phases.get(p, 0.0) for _, phases in runs)
            for p in ("cicc", "ptxas", "host")
        }
        median = statistics.median(walls)
        print(
            f"| {name} | {median:.1f} | {min(walls):.1f} | {max(walls):.1f} | {phase['cicc']:.1f} "
            f"| {phase['ptxas']:.1f} | {phase['host']:.1f} | {median / baseline:.2f}x |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
