#!/usr/bin/env python3
"""The README's "How to add a backend", checked by doing it: a throwaway third backend.

In a copy of the working tree, tools/new_backend.py makes `torch_toy` (device "toy") from
torch_sim, editing only its own directory, build_variables.bzl and third_device/backends.bzl.
A Bazel server of that copy's own then runs, for the new backend:
- its whole contract suite (`//tests/contract:torch_toy_<file>_test`, every file of
  tests/contract/contract.bzl's CONTRACT_TESTS), built from nothing but that entry;
- the audits, whose scopes now include it (`torch_toy_to_cuda_paths`, the include audit
  over its shipped libraries, the source-group test over its package) and the dependency
  graph's report.
The generator's refusals (a bad name, a backend that exists) are checked without Bazel.

Why a script that .ci/run runs, not a test under //tests/...: it needs a second checkout
with a Bazel server of its own, which a sandboxed test action cannot start (see
tests/repro/build_twice.py). Bazel's disk cache is shared, so everything but the new
backend comes from the cache: about three minutes on two cores once the main build is warm.

Usage: python3 tests/new_backend/third_backend_test.py [-v] [--keep]
"""

from __future__ import annotations

import re
import sys
import tempfile
import unittest
from pathlib import Path
from typing import ClassVar

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "tools"))
from checkout_copy import Checkout, copy_tree, remove_tree  # noqa: E402
from new_backend import NewBackendError, make_backend  # noqa: E402

NAME, DEVICE = "torch_toy", "toy"
FLAGS = ["--color=no", "--curses=no", "--show_progress_rate_limit=30", "--keep_going"]
KEEP = "--keep" in sys.argv


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under `root`, by path from it, with its contents."""
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def contract_files() -> list[str]:
    """CONTRACT_TESTS of tests/contract/contract.bzl: one test per file per backend."""
    text = (REPO / "tests" / "contract" / "contract.bzl").read_text()
    listing = re.search(r"^CONTRACT_TESTS = \[\n(.*?)^\]", text, re.M | re.S)
    assert listing is not None, "contract.bzl has no CONTRACT_TESTS list"
    return re.findall(r'"(\w+)"', listing.group(1))


class ThirdBackend(unittest.TestCase):
    workdir: ClassVar[Path]
    checkout: ClassVar[Checkout]
    changed: ClassVar[set[str]]  # files the generator wrote, from the repository root

    @classmethod
    def setUpClass(cls) -> None:
        cls.workdir = Path(tempfile.mkdtemp(prefix="third_backend."))
        cls.checkout = Checkout(cls.workdir / "src", cls.workdir / "output_base")
        copy_tree(REPO, cls.checkout.root)
        before = snapshot(cls.checkout.root)
        make_backend(cls.checkout.root, NAME, DEVICE)
        after = snapshot(cls.checkout.root)
        cls.changed = {
            path for path in before.keys() | after.keys() if before.get(path) != after.get(path)
        }

    @classmethod
    def tearDownClass(cls) -> None:
        cls.checkout.shutdown()
        if KEEP:
            print(f"third_backend_test: kept {cls.workdir}", file=sys.stderr)
        else:
            remove_tree(cls.workdir)

    def test_edits_only_its_directory_and_the_two_lists(self) -> None:
        outside = {path for path in self.changed if not path.startswith(f"third_device/{NAME}/")}
        self.assertEqual(outside, {"build_variables.bzl", "third_device/backends.bzl"})
        self.assertIn(f"third_device/{NAME}/BUILD.bazel", self.changed)

    def test_contract_suite_and_audits_pass(self) -> None:
        contract = [f"//tests/contract:{NAME}_{name}_test" for name in contract_files()]
        self.assertGreaterEqual(len(contract), 10)
        # Every audit, as the main run has them, now with the third backend in scope.
        self.checkout.bazel(
            "test", *FLAGS, "--", *contract, "//tests/audits:all", "//tests/depgraph:all"
        )

    def test_refuses_a_name_that_exists(self) -> None:
        with self.assertRaisesRegex(NewBackendError, "exists already"):
            make_backend(self.checkout.root, NAME, DEVICE)

    def test_refuses_a_name_that_is_not_torch_device(self) -> None:
        with self.assertRaisesRegex(NewBackendError, "torch_<device>"):
            make_backend(self.checkout.root, "ToyBackend", DEVICE)
        with self.assertRaisesRegex(NewBackendError, "torch_<device>"):
            make_backend(self.checkout.root, "torch_toy2", DEVICE)


if __name__ == "__main__":
    unittest.main(argv=[arg for arg in sys.argv if arg != "--keep"], verbosity=2)
