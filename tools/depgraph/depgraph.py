"""Renders the dependency graph of //third_device for reviewers.

`tools/bazel run //tools/depgraph [-- --out DIR]` writes, into DIR (default: the directory
it was run from):
  third_device_deps.svg   the graph, one colour per layer (graphviz `dot`, from
                          tools/graphviz, installed from pinned Debian packages)
  third_device_deps.txt   each target and its direct deps, one block per target
The edges come from a genquery (BUILD.bazel): our targets in the backends' closure and the
external targets they name directly, without toolchains and implicit deps.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

_EDGE = re.compile(r'^\s*"([^"]+)"\s*->\s*"([^"]+)"')
_NODE = re.compile(r'^\s*"([^"]+)"\s*$')
# Bzlmod's canonical names of our module extension's repositories, shown as users write them.
_CANONICAL_REPO = re.compile(r"^@@_main~hermetic_deps~([\w.-]+)//")

# (label prefix, layer name, fill colour), first match wins.
LAYERS = (
    ("//third_device/", "third_device (backends)", "#c7e9c0"),
    ("//torch_core", "torch_core (device-agnostic)", "#c6dbef"),
    ("//toolchains", "toolchains", "#eeeeee"),
    ("@cuda", "@cuda (hermetic CUDA)", "#fcbba1"),
    ("@torch", "@torch (stock CPU wheel)", "#fdd0a2"),
    ("@", "other external", "#ffffff"),
)


def display(label: str) -> str:
    return _CANONICAL_REPO.sub(r"@\1//", label)


def read_graph(path: Path) -> dict[str, list[str]]:
    deps: dict[str, list[str]] = {}
    for line in path.read_text().splitlines():
        if edge := _EDGE.match(line):
            source, target = display(edge.group(1)), display(edge.group(2))
            deps.setdefault(source, []).append(target)
            deps.setdefault(target, [])
        elif node := _NODE.match(line):
            deps.setdefault(display(node.group(1)), [])
    return deps


def layer_of(label: str) -> tuple[str, str]:
    for prefix, name, colour in LAYERS:
        if label.startswith(prefix):
            return name, colour
    return "other", "#ffffff"


def to_dot(deps: dict[str, list[str]]) -> str:
    lines = [
        "digraph third_device {",
        "  rankdir=LR;",
        '  node [shape=box, style=filled, fontname="Helvetica"];',
    ]
    clusters: dict[str, list[str]] = {}
    for label in deps:
        clusters.setdefault(layer_of(label)[0], []).append(label)
    for index, (name, labels) in enumerate(sorted(clusters.items())):
        colour = layer_of(labels[0])[1]
        lines.append(f'  subgraph cluster_{index} {{ label="{name}"; style=dashed;')
        lines += [f'    "{label}" [fillcolor="{colour}"];' for label in sorted(labels)]
        lines.append("  }")
    for source, targets in sorted(deps.items()):
        lines += [f'  "{source}" -> "{target}";' for target in sorted(targets)]
    lines.append("}")
    return "\n".join(lines) + "\n"


def to_report(deps: dict[str, list[str]]) -> str:
    blocks = []
    for label in sorted(deps):
        targets = sorted(deps[label])
        body = "".join(f"    {target}\n" for target in targets) or "    (no deps)\n"
        blocks.append(f"{label}   [{layer_of(label)[0]}]\n{body}")
    return "\n".join(blocks)


def main() -> int:
    parser = argparse.ArgumentParser(description="Render //third_device's dependency graph.")
    parser.add_argument("graph", type=Path, help="the genquery output (--output=graph)")
    parser.add_argument("--out", type=Path, default=Path("."),
                        help="output directory (default: where `bazel run` was run from)")
    options = parser.parse_args()
    deps = read_graph(options.graph)
    # `bazel run` starts us in the runfiles tree: a relative --out is relative to the caller.
    out = Path(os.environ.get("BUILD_WORKING_DIRECTORY", ".")) / options.out
    out.mkdir(parents=True, exist_ok=True)
    report = out / "third_device_deps.txt"
    report.write_text(to_report(deps))
    workspace = Path(os.environ.get("BUILD_WORKSPACE_DIRECTORY", "."))
    svg = out / "third_device_deps.svg"
    result = subprocess.run(
        [str(workspace / "tools" / "graphviz"), "dot", "-Tsvg", "-o", str(svg)],
        input=to_dot(deps), text=True, check=False,
    )
    if result.returncode != 0:
        print("depgraph: graphviz failed (see above); the text report is written", file=sys.stderr)
        return result.returncode
    print(f"depgraph: {len(deps)} targets\n  {svg}\n  {report}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
