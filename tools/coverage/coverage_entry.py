"""The Python toolchain's coverage tool: coverage.py's command line, run by Bazel's py_binary
stub under `bazel coverage`, with what the stub's own rc file does not say:

  run   traces only this workspace's code: torch, the standard library and the scripts
        a test writes to its temporary directory are omitted (not reported, and tracing
        them cost most of the time). Not all of /tmp: the checkout itself may lie there
        (coverage.py names a source by its real path, and CI clones into /tmp);
  lcov  skips a measured file that is gone by then (-i), instead of failing the test.

coverage.py itself is the pinned @python_coverage, found beside this file in the runfiles
(the stub puts only this file's grandparent directory on sys.path).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

OMIT = ["*/external/*", "/usr/*"]


def omitted() -> str:
    test_tmpdir = os.environ.get("TEST_TMPDIR")
    extra = [f"{os.path.realpath(test_tmpdir)}/*"] if test_tmpdir else []
    return ",".join([*OMIT, *extra])


def runfiles_root() -> Path:
    # <runfiles>/_main/tools/coverage/coverage_entry.py, read through the runfiles link.
    return Path(__file__).absolute().parents[3]


def coverage_package() -> Path:
    found = sorted(runfiles_root().glob("*python_coverage/coverage/__init__.py"))
    if not found:
        raise SystemExit(
            f"coverage_entry: coverage.py (@python_coverage) is not in {runfiles_root()}"
        )
    return found[0].parents[1]


def with_settings(args: list[str]) -> list[str]:
    if args and args[0] == "run":
        return ["run", f"--omit={omitted()}", *args[1:]]
    if args and args[0] == "lcov":
        return ["lcov", "-i", *args[1:]]
    return args


def main() -> None:
    sys.path.insert(0, str(coverage_package()))
    from coverage.cmdline import main as coverage_main

    sys.exit(coverage_main(with_settings(sys.argv[1:])))


if __name__ == "__main__":
    main()
