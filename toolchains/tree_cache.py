"""A store of unpacked repository trees, keyed by what decides their content.

Repository rules (toolchains/tree_cache.bzl) call it at fetch time. A pinned repository's
tree is a function of its pins (sha256s in a lock) and of the code that unpacks it, so a
new output base can take it from here instead of downloading and unpacking again.

  tree_cache.py key KEY_FILE            prints the sha256 of the key material
  tree_cache.py restore ROOT KEY DEST   hard-links the stored tree into DEST (exit 0),
                                        or exits 3 when there is none
  tree_cache.py store ROOT KEY SRC      stores SRC's tree under KEY

Entries are whole or absent: a tree is linked into a temporary directory and renamed into
place. Stored files are made read-only: the output bases share their inodes, and no one may
edit one copy of a file all of them hold. Hard links need one file system; where `cp -al`
cannot link, restore reports a miss and store stores nothing, and the rule fetches as usual.
Each entry holds a manifest of its files (path, size, modification time; a link's target),
written when it was stored. A restore first compares the entry with it and discards an
entry whose files changed since (an edit changes the time), so a tampered tree is fetched
again rather than linked. A store that cannot be read or written is a miss, never a failed
fetch. A restore marks its entry used; a store removes entries unused for UNUSED_DAYS (an
old pin's tree) and staging directories a killed fetch left. Output bases keep their links.
"""

import hashlib
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MISS = 3
UNUSED_DAYS = 30
MANIFEST = ".tree_manifest"


def key_of(key_file: Path) -> str:
    return hashlib.sha256(key_file.read_bytes()).hexdigest()


def _link_tree(source: Path, destination: Path) -> bool:
    """Hard-links every file of `source` into the existing directory `destination`."""
    result = subprocess.run(
        ["cp", "-al", "--", f"{source}/.", str(destination)],
        capture_output=True,
        text=True,
        check=False,
    )
    return result.returncode == 0


def _make_read_only(tree: Path) -> None:
    for directory, _, files in os.walk(tree):
        for name in files:
            path = Path(directory, name)
            mode = path.lstat().st_mode
            if stat.S_ISREG(mode):
                path.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))


def _manifest(tree: Path) -> str:
    """One sorted line per file and link of `tree` but the manifest itself."""
    lines = []
    for directory, _, files in os.walk(tree):
        for name in files:
            path = Path(directory, name)
            relative = str(path.relative_to(tree))
            if relative == MANIFEST:
                continue
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                lines.append(f"{relative}\t->\t{os.readlink(path)}")
            else:
                lines.append(f"{relative}\t{info.st_size}\t{info.st_mtime_ns}")
    return "\n".join(sorted(lines)) + "\n"


def _intact(entry: Path) -> bool:
    manifest = entry / MANIFEST
    return manifest.is_file() and manifest.read_text() == _manifest(entry)


def restore(root: Path, key: str, destination: Path) -> int:
    entry = root / key
    if not entry.is_dir():
        return MISS
    if not _intact(entry):
        print(f"tree_cache: {entry} changed since it was stored; fetching again", file=sys.stderr)
        shutil.rmtree(entry, ignore_errors=True)
        return MISS
    if _link_tree(entry, destination):
        (destination / MANIFEST).unlink()
        os.utime(entry)
        return 0
    # A partial copy must not stay behind for the fetch that follows.
    for child in destination.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()
    return MISS


def _prune(root: Path) -> None:
    now = time.time()
    for child in root.iterdir():
        try:
            age_days = (now - child.stat().st_mtime) / 86400
        except FileNotFoundError:
            continue  # another fetch pruned or renamed it
        staging = child.name.startswith(".")
        if age_days > (1 if staging else UNUSED_DAYS):
            shutil.rmtree(child, ignore_errors=True)


def store(root: Path, key: str, source: Path) -> int:
    entry = root / key
    if entry.is_dir():
        return 0
    root.mkdir(parents=True, exist_ok=True)
    _prune(root)
    staging = Path(tempfile.mkdtemp(prefix=f".{key[:12]}-", dir=root))
    try:
        if not _link_tree(source, staging):
            return 0
        _make_read_only(staging)
        (staging / MANIFEST).write_text(_manifest(staging))
        try:
            staging.rename(entry)
        except OSError:
            # Another fetch stored the same key first; its tree is the same.
            pass
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return 0


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "key":
        print(key_of(Path(argv[1])))
        return 0
    if len(argv) == 4 and argv[0] in ("restore", "store"):
        command, root, key, tree = argv
        action = restore if command == "restore" else store
        try:
            return action(Path(root), key, Path(tree))
        except OSError as error:
            # The store only saves time: a store it cannot read or write must not fail the
            # fetch, which goes on (or has gone) as without it.
            print(f"tree_cache: {command} in {root} failed ({error}); going on without it",
                  file=sys.stderr)
            return MISS if command == "restore" else 0
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
