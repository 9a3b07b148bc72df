#!/usr/bin/env python3
"""Make @host_python's unpacked Debian packages an interpreter that runs from anywhere.

Run by toolchains/python/host_python_repository.bzl in the new repository:
`host_python_tree.py ROOT`. It
- drops what the interpreter never reads (usr/share, the packages' /etc and the links into
  it) and makes Debian's absolute symlinks relative inside ROOT;
- gathers in tool_libs/ the libraries the interpreter and its standard library's extension
  modules link (zlib, expat, OpenSSL, libffi, ...): it runs on the machine's glibc only;
- writes bin/python3, the wrapper the Python toolchain runs: the pinned python3.11 with
  tool_libs first on its library path. CPython finds its prefix from the binary's own
  location (ROOT/usr/lib/python3.11/os.py), so the tree works wherever Bazel puts it;
- compiles the standard library to bytecode, as Debian's postinst would: without it every
  interpreter start would compile what it imports (the sandbox's inputs are read-only, so
  the bytecode could never be cached). Hash-based .pyc: the bytes do not depend on when
  the tree was unpacked.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools" / "bazel_install"))

from prefix_patching import gather_tool_libs, relativize_symlinks

INTERPRETER = "usr/bin/python3.11"
STDLIB = "usr/lib/python3.11"
# The wrapper's own location names the root (bin/python3 under it), followed through a
# link; the caller's library path is kept after the interpreter's own libraries, since
# what the interpreter loads (torch, a CUDA driver) may need it.
WRAPPER = f"""#!/bin/sh
# Written by toolchains/python/host_python_tree.py: @host_python's interpreter.
self=$(readlink -f "$0") && root="${{self%/bin/*}}"
LD_LIBRARY_PATH="$root/tool_libs${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}" \\
  exec "$root/{INTERPRETER}" "$@"
"""


def write_wrapper(root: Path) -> Path:
    if not (root / INTERPRETER).is_file():
        raise SystemExit(f"host_python_tree.py: no {INTERPRETER} in the packages")
    wrapper = root / "bin" / "python3"
    wrapper.parent.mkdir()
    wrapper.write_text(WRAPPER)
    wrapper.chmod(0o755)
    return wrapper


def compile_stdlib(wrapper: Path, root: Path) -> None:
    # Relative to the root, so that no .pyc names where this tree was unpacked: the files
    # are every Python action's inputs, and their digests must not depend on the output base.
    subprocess.run(
        [str(wrapper), "-m", "compileall", "-q", "-j", "0", "--invalidation-mode",
         "unchecked-hash", STDLIB],
        cwd=root,
        check=True,
    )


def main() -> int:
    if len(sys.argv) != 2:
        print(f"usage: {sys.argv[0]} ROOT", file=sys.stderr)
        return 2
    root = Path(sys.argv[1]).resolve()
    for unused in ("usr/share", "etc"):
        shutil.rmtree(root / unused, ignore_errors=True)
    rewritten, dropped = relativize_symlinks(root)
    # Nothing of the machine's glibc is pinned: every library here is the interpreter's.
    libraries = gather_tool_libs(root, skip=set())
    compile_stdlib(write_wrapper(root), root)
    print(f"{rewritten} links made relative, {dropped} dangling dropped, {libraries} libraries")
    return 0


if __name__ == "__main__":
    sys.exit(main())
