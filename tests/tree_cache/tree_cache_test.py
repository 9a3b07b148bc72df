"""toolchains/tree_cache.py: whole entries, shared read-only inodes, misses that leave nothing.

A repository rule stores the tree it unpacked under a key of its pins and code, and a new
output base restores it by hard links. Checked here on a small tree with a subdirectory, an
executable and a relative symlink, as the pinned trees have.
"""

from __future__ import annotations

import os
import stat
import tempfile
import time
import unittest
from pathlib import Path

import tree_cache


def make_tree(root: Path) -> None:
    (root / "lib").mkdir()
    (root / "lib" / "libx.so.1").write_bytes(b"\x7fELF library")
    (root / "lib" / "libx.so").symlink_to("libx.so.1")
    tool = root / "bin_tool"
    tool.write_text("#!/bin/sh\necho tool\n")
    tool.chmod(0o755)


def listing(root: Path) -> dict[str, tuple[str, bytes]]:
    """Each path under root: its kind and content (a link's target)."""
    result = {}
    for directory, _, files in os.walk(root):
        for name in files:
            path = Path(directory, name)
            relative = str(path.relative_to(root))
            if path.is_symlink():
                result[relative] = ("link", os.readlink(path).encode())
            else:
                result[relative] = ("file", path.read_bytes())
    return result


class TreeCacheTest(unittest.TestCase):
    def setUp(self) -> None:
        scratch = tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR"))
        self.addCleanup(scratch.cleanup)
        self.scratch = Path(scratch.name)
        self.store = self.scratch / "store"
        self.source = self.scratch / "fetched"
        self.source.mkdir()
        make_tree(self.source)
        key_file = self.scratch / "key"
        key_file.write_text("torch==2.13.0 --hash=sha256:...\nextract_only: \n")
        self.key = tree_cache.key_of(key_file)

    def fresh_output_base(self) -> Path:
        return Path(tempfile.mkdtemp(dir=self.scratch))

    def test_key_is_the_material_digest(self) -> None:
        self.assertRegex(self.key, r"^[0-9a-f]{64}$")
        other = self.scratch / "other_key"
        other.write_text("torch==2.13.0 --hash=sha256:...\nextract_only: nvidia/\n")
        self.assertNotEqual(tree_cache.key_of(other), self.key)

    def test_miss_then_store_then_restore(self) -> None:
        destination = self.fresh_output_base()
        self.assertEqual(tree_cache.restore(self.store, self.key, destination), tree_cache.MISS)
        self.assertEqual(list(destination.iterdir()), [])

        self.assertEqual(tree_cache.store(self.store, self.key, self.source), 0)
        self.assertEqual(tree_cache.restore(self.store, self.key, destination), 0)
        # The same tree, without the store's manifest.
        self.assertEqual(listing(destination), listing(self.source))
        # Hard links, not copies: the output bases share the stored inodes.
        for name in ("lib/libx.so.1", "bin_tool"):
            self.assertTrue(os.path.samefile(destination / name, self.store / self.key / name))
        self.assertTrue((destination / "lib" / "libx.so").is_symlink())

    def test_an_edited_entry_is_discarded_not_linked(self) -> None:
        tree_cache.store(self.store, self.key, self.source)
        library = self.store / self.key / "lib" / "libx.so.1"
        library.chmod(0o644)
        library.write_bytes(b"\x7fELF tampered")
        destination = self.fresh_output_base()
        self.assertEqual(tree_cache.restore(self.store, self.key, destination), tree_cache.MISS)
        self.assertEqual(list(destination.iterdir()), [])
        self.assertFalse((self.store / self.key).exists(), "the changed entry must go")
        # The fetch that follows stores its tree anew. (self.source shares the edited inode.)
        refetched = self.scratch / "refetched"
        refetched.mkdir()
        make_tree(refetched)
        tree_cache.store(self.store, self.key, refetched)
        self.assertEqual(tree_cache.restore(self.store, self.key, destination), 0)
        self.assertEqual((destination / "lib" / "libx.so.1").read_bytes(), b"\x7fELF library")

    def test_stored_files_are_read_only_and_keep_execute(self) -> None:
        tree_cache.store(self.store, self.key, self.source)
        entry = self.store / self.key
        for name in ("lib/libx.so.1", "bin_tool"):
            mode = (entry / name).stat().st_mode
            self.assertEqual(mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH), 0, name)
        self.assertTrue((entry / "bin_tool").stat().st_mode & stat.S_IXUSR)

    def test_no_partial_entry_is_visible(self) -> None:
        tree_cache.store(self.store, self.key, self.source)
        leftovers = [p.name for p in self.store.iterdir() if p.name != self.key]
        self.assertEqual(leftovers, [], "the staging directory must be renamed or removed")

    def test_second_store_keeps_the_first_entry(self) -> None:
        tree_cache.store(self.store, self.key, self.source)
        first = (self.store / self.key / "bin_tool").stat().st_ino
        other = self.scratch / "fetched_again"
        other.mkdir()
        make_tree(other)
        self.assertEqual(tree_cache.store(self.store, self.key, other), 0)
        self.assertEqual((self.store / self.key / "bin_tool").stat().st_ino, first)

    def test_store_prunes_unused_entries_and_stale_staging(self) -> None:
        tree_cache.store(self.store, self.key, self.source)
        old_entry, old_staging, fresh_staging = "0" * 64, ".feedface-old", ".feedface-new"
        for name in (old_entry, old_staging, fresh_staging):
            (self.store / name).mkdir()
        long_ago = time.time() - (tree_cache.UNUSED_DAYS + 1) * 86400
        for name in (self.key, old_entry, old_staging):
            os.utime(self.store / name, (long_ago, long_ago))
        # Restoring marks the entry used, so the prune below keeps it.
        tree_cache.restore(self.store, self.key, self.fresh_output_base())
        other = self.scratch / "other_key"
        other.write_text("another pin\n")
        tree_cache.store(self.store, tree_cache.key_of(other), self.source)
        self.assertEqual(
            sorted(p.name for p in self.store.iterdir()),
            sorted([fresh_staging, self.key, tree_cache.key_of(other)]),
        )

    def test_an_unusable_store_is_a_miss_not_a_failure(self) -> None:
        # A file where the store's directory should be: no user, root included, can use it.
        self.store.write_text("not a directory")
        destination = self.fresh_output_base()
        stored = tree_cache.main(["store", str(self.store), self.key, str(self.source)])
        self.assertEqual(stored, 0, "a store that fails must not fail the fetch")
        restored = tree_cache.main(["restore", str(self.store), self.key, str(destination)])
        self.assertEqual(restored, tree_cache.MISS)
        self.assertEqual(list(destination.iterdir()), [])

    def test_restore_across_file_systems_is_a_clean_miss(self) -> None:
        shm = Path("/dev/shm")
        if not shm.is_dir() or not os.access(shm, os.W_OK):
            self.skipTest("no writable /dev/shm to stand for another file system")
        tree_cache.store(self.store, self.key, self.source)
        if os.stat(shm).st_dev == os.stat(self.store).st_dev:
            self.skipTest("/dev/shm is on the store's file system here; hard links would work")
        destination = tempfile.TemporaryDirectory(dir=shm)
        self.addCleanup(destination.cleanup)
        elsewhere = Path(destination.name)
        self.assertEqual(tree_cache.restore(self.store, self.key, elsewhere), tree_cache.MISS)
        self.assertEqual(list(elsewhere.iterdir()), [], "a failed link leaves nothing")


if __name__ == "__main__":
    unittest.main()
