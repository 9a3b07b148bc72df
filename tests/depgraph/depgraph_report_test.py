"""The dependency report of `tools/bazel run //tools/depgraph`, on the real genquery output.

Runs depgraph.py's parsing and text report (no graphviz) and checks what reviewers read
it for: no //torch_core target depends on @cuda, torch_cuda builds on torch_core's CPU
library, and the report lists each target's direct deps exactly as the query found them.
"""

from __future__ import annotations

import re
import sys
import unittest
from pathlib import Path

import depgraph

# The genquery output, `$(rootpath //tools/depgraph:third_device_graph)` from BUILD.bazel.
GRAPH = Path(sys.argv.pop(1)) if len(sys.argv) > 1 else Path("tools/depgraph/third_device_graph")
EDGE = re.compile(r'^\s*"([^"]+)"\s*->\s*"([^"]+)"\s*$')
NODE = re.compile(r'^\s*"([^"]+)"\s*$')
# @cuda and its siblings (@cuda_cublas, ...), as users write them or by canonical name.
CUDA_REPO = re.compile(r"^@@?(?:[^/]*~)?cuda(?:_\w+)?//")


def parse_report(text: str) -> dict[str, list[str]]:
    """The report's blocks: `LABEL   [layer]` then one indented line per direct dep."""
    blocks: dict[str, list[str]] = {}
    current = ""
    for line in text.splitlines():
        if line.startswith("    "):
            if line.strip() != "(no deps)":
                blocks[current].append(line.strip())
        elif line.strip():
            current = line.split()[0]
            blocks[current] = []
    return blocks


class DepgraphReportTest(unittest.TestCase):
    report: dict[str, list[str]]

    @classmethod
    def setUpClass(cls) -> None:
        cls.report = parse_report(depgraph.to_report(depgraph.read_graph(GRAPH)))

    def test_report_lists_each_targets_direct_deps(self):
        expected: dict[str, list[str]] = {}
        for line in GRAPH.read_text().splitlines():
            if edge := EDGE.match(line):
                source, target = map(depgraph.display, edge.groups())
                expected.setdefault(source, []).append(target)
                expected.setdefault(target, [])
            elif node := NODE.match(line):
                expected.setdefault(depgraph.display(node.group(1)), [])
        self.assertGreater(len(expected), 10, f"{GRAPH} holds almost no graph")
        self.assertEqual(self.report, {label: sorted(deps) for label, deps in expected.items()})

    def test_torch_core_never_depends_on_cuda(self):
        core = [label for label in self.report if label.startswith("//torch_core:")]
        self.assertIn("//torch_core:torch_core", core)
        # Not vacuous: @cuda is in the graph, under the name users write.
        self.assertIn("@cuda//:cudart_static", self.report)
        for label in core:
            cuda = [dep for dep in self.report[label] if CUDA_REPO.match(dep)]
            self.assertEqual(cuda, [], f"{label} depends on @cuda")

    def test_torch_cuda_builds_on_torch_cpu(self):
        self.assertIn("//torch_core:torch_core",
                      self.report["//third_device/torch_cuda:torch_cuda"])


if __name__ == "__main__":
    unittest.main()
