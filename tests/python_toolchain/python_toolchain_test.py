"""The interpreter this test runs on is @host_python's, as the lock pins it.

Checked from inside: the version is the pinned package's, the interpreter and its headers
lie in the @host_python tree, the libraries the standard library's extension modules load
(OpenSSL, SQLite, libffi, liblzma, ...) come from that tree too, with nothing from the
machine but glibc, and the standard library has its bytecode.
"""

from __future__ import annotations

import importlib.util
import re
import sys
import sysconfig
import unittest
from pathlib import Path

from deb_lock import read_lock

LOCK = Path(sys.argv.pop(1))
REPOSITORY = "host_python"
# glibc's own objects and the kernel's vDSO: what the interpreter takes from the machine.
GLIBC = re.compile(r"^(ld-linux-x86-64|libc|libm|libpthread|libdl|librt)\.so")
# Standard library modules that load libraries beyond glibc.
LINKING_MODULES = ("ssl", "sqlite3", "ctypes", "lzma", "bz2", "zlib", "pyexpat", "uuid")


def pinned_version(package: str) -> str:
    for pin in read_lock(LOCK):
        if pin.package == package:
            return pin.version
    raise AssertionError(f"{LOCK} pins no {package}")


def tree_of(path: str) -> Path | None:
    """The @host_python root above `path`, or None."""
    for parent in Path(path).parents:
        if parent.name.endswith(REPOSITORY) and (parent / "bin" / "python3").exists():
            return parent
    return None


def loaded_libraries() -> list[str]:
    paths = set()
    for line in Path("/proc/self/maps").read_text().splitlines():
        fields = line.split()
        if len(fields) == 6 and ".so" in fields[5]:
            paths.add(fields[5])
    return sorted(paths)


class PythonToolchainTest(unittest.TestCase):
    def test_version_is_the_pinned_packages(self) -> None:
        upstream = pinned_version("python3.11-minimal").split("-")[0]
        self.assertEqual(".".join(map(str, sys.version_info[:3])), upstream)

    def test_interpreter_and_headers_are_the_trees(self) -> None:
        root = tree_of(sys.executable)
        self.assertIsNotNone(root, f"{sys.executable} is not @host_python's interpreter")
        include = Path(sysconfig.get_paths()["include"])
        self.assertEqual(tree_of(str(include)), root)
        self.assertTrue((include / "Python.h").is_file())

    def test_extension_modules_load_pinned_libraries(self) -> None:
        for module in LINKING_MODULES:
            __import__(module)
        root = tree_of(sys.executable)
        foreign = [
            path for path in loaded_libraries()
            if not path.startswith(str(root)) and not GLIBC.match(Path(path).name)
        ]
        self.assertEqual(foreign, [], "libraries loaded from outside @host_python")

    def test_standard_library_has_bytecode(self) -> None:
        import json

        cached = importlib.util.cache_from_source(json.__file__)
        self.assertTrue(Path(cached).is_file(), f"no {cached}")


if __name__ == "__main__":
    unittest.main()
