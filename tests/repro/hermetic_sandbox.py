#!/usr/bin/env python3
"""Bazel flags that run every action in the hermetic Linux sandbox, and what it may see.

`--experimental_use_hermetic_linux_sandbox` gives each action an empty root holding only
its declared inputs (hard-linked) plus the mounts named here. What is mounted is what the
pinned toolchains run on, not what they build with:
- the machine's programs in /usr/bin (as /bin too): genrules' shell and coreutils, and
  the shebang of @host_gcc's wrappers. The machine's compilers, binutils and Python
  interpreter among them are blocked, so an action that reaches for them fails;
- the machine's glibc and the other runtime libraries in /usr/lib/x86_64-linux-gnu (as
  /lib/x86_64-linux-gnu too, where the loader in /lib64 points): the pinned gcc, nvcc and
  Python run on them, as toolchains_llvm's clang does;
- the Python interpreter's prefix (@local_python's; the Python toolchain is the machine's).
Not mounted, so invisible to every action: /usr/include, /usr/lib/gcc, /usr/local, the
Python libraries under /usr/lib/python3*, HOME. A compile or link that reads a header,
library or program of the machine instead of @host_gcc's fails there.

tests/repro/build_twice.py builds with these flags. Usage, for any build:
  tools/bazel build $(python3 tests/repro/hermetic_sandbox.py) //third_device/torch_cuda:all
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

# The machine's compilers, binutils and Python, by their names in /usr/bin.
_MACHINE_TOOLCHAIN = re.compile(
    r"^(x86_64-linux-gnu-)?(gcc|g\+\+|cc|c\+\+|cpp|as|ld|ld\.bfd|ld\.gold|gold|ar|ranlib|nm"
    r"|objcopy|objdump|strip|gcov|python3?)(-[0-9.]+)?$"
)
_MOUNTS = [
    ("/usr/bin", "/usr/bin"),
    ("/usr/bin", "/bin"),
    ("/usr/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu"),
    ("/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu"),
    ("/lib64", "/lib64"),
]


def hermetic_sandbox_flags() -> list[str]:
    mounts = [*_MOUNTS, (sys.base_prefix, sys.base_prefix)]
    flags = ["--experimental_use_hermetic_linux_sandbox"]
    flags += [f"--sandbox_add_mount_pair={source}:{target}" for source, target in mounts]
    blocked = sorted(p.name for p in Path("/usr/bin").iterdir() if _MACHINE_TOOLCHAIN.match(p.name))
    for folder in ("/usr/bin", "/bin"):
        flags += [f"--sandbox_block_path={folder}/{name}" for name in blocked]
    return flags


if __name__ == "__main__":
    print(" ".join(hermetic_sandbox_flags()))
