"""Copies of the working tree with Bazel servers of their own, for the CI scripts that
need a second checkout (tests/repro/build_twice.py, tests/new_backend/third_backend_test.py).

The tree is copied as git sees it: tracked files plus untracked ones that are not ignored
(`git ls-files -co --exclude-standard`), so uncommitted changes are checked too.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from collections.abc import Callable
from pathlib import Path


def copy_tree(source: Path, dest: Path, mtime: int | None = None) -> int:
    """Copies the files git would see in `source`; dates them `mtime` when given."""
    listing = subprocess.run(
        ["git", "-C", str(source), "ls-files", "-z", "-co", "--exclude-standard"],
        capture_output=True,
        check=True,
    ).stdout
    count = 0
    for name in sorted(set(listing.decode().split("\0")) - {""}):
        src = source / name
        if not src.exists() and not src.is_symlink():
            continue  # deleted in the working tree but not yet in git
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, target, follow_symlinks=False)
        if mtime is not None:
            os.utime(target, (mtime, mtime), follow_symlinks=False)
        count += 1
    return count


class Checkout:
    """One copy of the tree with its own output base (and so its own Bazel server)."""

    def __init__(self, root: Path, output_base: Path) -> None:
        self.root = root
        self.output_base = output_base
        # The server unpacks its JNI library into java.io.tmpdir and leaves it there: keep
        # it in the work directory, which is deleted at the end, rather than in /tmp.
        jvm_tmp = output_base.parent / f"{output_base.name}.jvm_tmp"
        jvm_tmp.mkdir(parents=True, exist_ok=True)
        self.command = [
            str(root / "tools" / "bazel"),
            f"--output_base={output_base}",
            f"--host_jvm_args=-Djava.io.tmpdir={jvm_tmp}",
        ]

    def bazel(self, *args: str) -> None:
        status = subprocess.run([*self.command, *args], cwd=self.root, check=False).returncode
        if status != 0:
            raise RuntimeError(f"bazel {' '.join(args)} failed in {self.root} ({status})")

    def shutdown(self) -> None:
        subprocess.run(
            [*self.command, "shutdown"],
            cwd=self.root,
            check=False,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )


def remove_tree(path: Path) -> None:
    """rmtree that also removes the read-only files and directories Bazel leaves."""

    def make_writable(function: Callable[..., object], name: str, _error: object) -> None:
        os.chmod(os.path.dirname(name), stat.S_IRWXU)
        if os.path.isdir(name) and not os.path.islink(name):
            os.chmod(name, stat.S_IRWXU)
        function(name)

    if path.exists():
        shutil.rmtree(path, onerror=make_writable)  # onexc is 3.12+
