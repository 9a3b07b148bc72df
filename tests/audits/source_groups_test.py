"""build_variables.bzl is the one list of sources: every C++, CUDA and Python source under
torch_core/ and third_device/ (each package's :source_files) is in exactly one group, and
every path a group names is such a file.

    source_groups_test.py build_variables.bzl <source file>...
"""

from __future__ import annotations

import ast
import sys
import unittest
from pathlib import Path

ARGS = sys.argv[1:]
sys.argv[1:] = []


def read_groups(text: str) -> dict[str, list[str]]:
    """The module-level `name = ["path", ...]` lists of a build_variables.bzl."""
    groups = {}
    for node in ast.parse(text).body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.List):
            name = node.targets[0].id
            groups[name] = [element.value for element in node.value.elts]
    return groups


def problems(groups: dict[str, list[str]], files: list[str]) -> list[str]:
    """What breaks the rule, one line per file, naming what to do."""
    owners: dict[str, list[str]] = {}
    for group, paths in groups.items():
        for path in paths:
            owners.setdefault(path, []).append(group)
    found = []
    for path in sorted(files):
        groups_of = owners.get(path, [])
        if not groups_of:
            found.append(f"{path} is in no group of build_variables.bzl: add it to one")
        elif len(groups_of) > 1:
            found.append(f"{path} is in {len(groups_of)} groups ({', '.join(groups_of)}): keep one")
    for path in sorted(set(owners) - set(files)):
        found.append(f"{path} ({', '.join(owners[path])}) names no source file: remove it")
    return found


class SourceGroups(unittest.TestCase):
    def test_every_source_in_exactly_one_group(self) -> None:
        bzl, *files = ARGS
        groups = read_groups(Path(bzl).read_text())
        self.assertGreater(len(files), 100, "the :source_files filegroups listed too few files")
        found = problems(groups, files)
        self.assertEqual(found, [], "\n".join(found))
        print(f"{len(files)} sources in {len(groups)} groups, each in exactly one")

    # The rule on made-up inputs, so the check is shown able to fail.
    def test_reports_a_file_in_no_group(self) -> None:
        found = problems({"a_sources": ["x/a.cpp"]}, ["x/a.cpp", "x/b.cpp"])
        self.assertEqual(found, ["x/b.cpp is in no group of build_variables.bzl: add it to one"])

    def test_reports_a_file_in_two_groups(self) -> None:
        found = problems({"a": ["x/a.h"], "b": ["x/a.h"]}, ["x/a.h"])
        self.assertEqual(found, ["x/a.h is in 2 groups (a, b): keep one"])

    def test_reports_a_path_that_names_no_file(self) -> None:
        found = problems({"a": ["x/a.h", "x/gone.h"]}, ["x/a.h"])
        self.assertEqual(found, ["x/gone.h (a) names no source file: remove it"])

    def test_reads_groups_but_not_functions(self) -> None:
        text = 'def f():\n    return []\n\n# c\na = [\n    "x/a.h",\n]\n'
        self.assertEqual(read_groups(text), {"a": ["x/a.h"]})


if __name__ == "__main__":
    unittest.main()
