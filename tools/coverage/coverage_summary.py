"""Line coverage per layer from `tools/bazel coverage //tests/...`'s combined report.

  tools/bazel run //tools/coverage:coverage_summary [-- --report PATH]

Rows: torch_core's C++ and Python; torch_cuda's host C++ (what CI runs on the simulated
variant), its Python, and its GPU-only C++, the sources of torch_cuda's targets over @cuda
that the simulated variant does not link (//tools/coverage:gpu_only_sources' query): their
host code is instrumented where gcc compiles it (the library executors, run by tests/gpu
without a device), device code compiled by nvcc is not instrumented and is counted in
source lines only.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, field
from pathlib import Path

from lcov_tool import new_coverage, read_lcov

CPP_SUFFIXES = (".cpp", ".cc", ".h", ".cu", ".cuh")
DEFAULT_REPORT = "bazel-out/_coverage/_coverage_report.dat"


@dataclass
class Row:
    name: str
    files: set[str] = field(default_factory=set)
    lines: int = 0
    covered: int = 0

    def add(self, source: str, lines: dict[int, int]) -> None:
        self.files.add(source)
        self.lines += len(lines)
        self.covered += sum(1 for count in lines.values() if count > 0)

    def percent(self) -> str:
        return f"{100 * self.covered / self.lines:.0f}%" if self.lines else "-"


def gpu_only_sources(query_output: Path) -> set[str]:
    """Workspace paths of the labels //tools/coverage:gpu_only_sources lists."""
    paths = set()
    for label in query_output.read_text().split():
        if label.startswith("//"):
            package, _, name = label[2:].partition(":")
            paths.add(f"{package}/{name}" if package else name)
    return paths


def source_lines(path: Path) -> int:
    """Lines that are neither blank nor comments (an estimate for uninstrumented code)."""
    text = path.read_text(errors="replace").splitlines()
    return sum(1 for line in text if line.strip() and not line.strip().startswith("//"))


def summarise(report: Path, gpu_only: set[str], workspace: Path) -> list[str]:
    rows = {
        name: Row(name)
        for name in (
            "torch_core C++",
            "torch_core Python",
            "torch_cuda host C++",
            "torch_cuda Python",
            "torch_cuda GPU-only C++ (host code)",
        )
    }
    coverage = new_coverage()
    read_lcov(report.read_text(), coverage)
    for source, lines in coverage.items():
        if source.startswith("torch_core/"):
            rows["torch_core Python" if source.endswith(".py") else "torch_core C++"].add(
                source, lines
            )
        elif source.startswith("third_device/torch_cuda/"):
            if source.endswith(".py"):
                rows["torch_cuda Python"].add(source, lines)
            elif source in gpu_only:
                rows["torch_cuda GPU-only C++ (host code)"].add(source, lines)
            else:
                rows["torch_cuda host C++"].add(source, lines)
    instrumented = rows["torch_cuda GPU-only C++ (host code)"].files
    device_code = sorted(
        s
        for s in gpu_only
        if s.endswith(CPP_SUFFIXES) and s not in instrumented and (workspace / s).is_file()
    )
    table = ["| part | files | lines | covered | line coverage |", "|---|---:|---:|---:|---:|"]
    for row in rows.values():
        table.append(
            f"| {row.name} | {len(row.files)} | {row.lines} | {row.covered} | {row.percent()} |"
        )
    device_lines = sum(source_lines(workspace / s) for s in device_code)
    name = "torch_cuda GPU-only C++ (nvcc, not instrumented)"
    table.append(f"| {name} | {len(device_code)} | {device_lines} | - | - |")
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--report", default=DEFAULT_REPORT, help="relative to the workspace")
    args = parser.parse_args()
    workspace = Path(os.environ.get("BUILD_WORKSPACE_DIRECTORY", "."))
    report = workspace / args.report
    if not report.is_file():
        raise SystemExit(
            f"coverage_summary: no report at {report}; run `tools/bazel coverage //tests/...` first"
        )
    runfiles = (
        Path(os.environ["RUNFILES_DIR"]) / "_main" if "RUNFILES_DIR" in os.environ else Path(".")
    )
    gpu_only = gpu_only_sources(runfiles / "tools/coverage/gpu_only_sources")
    print("\n".join(summarise(report, gpu_only, workspace)))


if __name__ == "__main__":
    main()
