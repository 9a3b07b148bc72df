"""Prints the README's Markdown table: the torch._C names torch's Python code expects of
a CUDA build (tools/c_names.txt, from the CUDA-key probe: 93 names) and whether torch_cuda
provides each, and by what (torch_cuda/torch_c/coverage.py). Imports no torch.

    tools/bazel run //third_device/torch_cuda:cuda_names_coverage
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from torch_cuda.torch_c.coverage import PROVIDED, STUBS

_LINE = re.compile(r"^\s*(\d+)\s+(\*?)\s*(_\w+)\s+(\S+)")


def expected_names(path: Path) -> list[tuple[str, str]]:
    """(name, where torch uses it) in the file's order."""
    names = []
    for line in path.read_text().splitlines():
        match = _LINE.match(line)
        if match:
            names.append((match.group(3), match.group(4)))
    return names


def table(names: list[tuple[str, str]]) -> str:
    provided = sum(1 for name, _ in names if name in PROVIDED)
    stubs = sum(1 for name, _ in names if name in STUBS)
    lines = [
        f"torch._C names torch's Python code expects of a CUDA build: {provided}/{len(names)} "
        f"provided by torch_cuda, {stubs} more present as stubs that raise (feature not "
        f"supported yet), {len(names) - provided - stubs} absent.",
        "",
        "| name | used by | provided | by what |",
        "|---|---|---|---|",
    ]
    for name, used_by in names:
        if name in PROVIDED:
            provided_cell, how = "yes", PROVIDED[name]
        elif name in STUBS:
            provided_cell, how = "stub", f"raises: {STUBS[name]} not supported yet"
        else:
            provided_cell, how = "no", ""
        lines.append(f"| `{name}` | {used_by} | {provided_cell} | {how} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    here = Path(__file__).resolve().parent
    source = Path(sys.argv[1]) if len(sys.argv) > 1 else here / "c_names.txt"
    sys.stdout.write(table(expected_names(source)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
