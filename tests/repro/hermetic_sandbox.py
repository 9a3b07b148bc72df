#!/usr/bin/env python3
"""Bazel flags that run every action in the hermetic Linux sandbox, and what it may see.

`--experimental_use_hermetic_linux_sandbox` gives each action an empty root holding only
its declared inputs (hard-linked) plus the mounts named here. What is mounted is what the
pinned toolchains run on, not what they build with:
- the machine's programs in /usr/bin (as /bin too): genrules' shell and coreutils, and
  the shebang of @host_gcc's and @host_python's wrappers and of every py_binary's
  launcher. The machine's compilers, binutils and Python interpreter among them are
  blocked, so an action that reaches for them fails;
- the machine's glibc and the other runtime libraries in /usr/lib/x86_64-linux-gnu (as
  /lib/x86_64-linux-gnu too, where the loader in /lib64 points): the pinned gcc, nvcc and
  Python run on glibc, as toolchains_llvm's clang does (their other libraries are pinned,
  first on their library path).
Not mounted, so invisible to every action: /usr/include, /usr/lib/gcc, /usr/local, the
Python libraries under /usr/lib/python3*, any other Python installation, HOME. A compile
or link that reads a header, library or program of the machine instead of @host_gcc's, or
a py_binary that runs another interpreter than @host_python's, fails there.

tests/repro/build_twice.py builds with these flags, and .ci/run runs //tests/... with them
(every test passes there: a test that runs a compiler names the pinned one, CXX). The
kernel's /proc and the CPU's description in /sys are mounted, and /dev/shm writable, as
torch needs them. Usage, for any build or test:
  tools/bazel test $(python3 tests/repro/hermetic_sandbox.py) //tests/...
"""

from __future__ import annotations

import re
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
    # The kernel's views of the process and of the CPU, not files of the machine's software:
    # torch's cpuinfo reads both at its first CPU kernel, a test reads its own /proc/self.
    ("/proc", "/proc"),
    ("/sys/devices/system/cpu", "/sys/devices/system/cpu"),
]


def hermetic_sandbox_flags() -> list[str]:
    flags = ["--experimental_use_hermetic_linux_sandbox"]
    flags += [f"--sandbox_add_mount_pair={source}:{target}" for source, target in _MOUNTS]
    # POSIX shared memory, writable (as in Bazel's standard sandbox): torch shares CPU
    # tensors between processes through it.
    flags += ["--sandbox_add_mount_pair=/dev/shm", "--sandbox_writable_path=/dev/shm"]
    blocked = sorted(p.name for p in Path("/usr/bin").iterdir() if _MACHINE_TOOLCHAIN.match(p.name))
    for folder in ("/usr/bin", "/bin"):
        flags += [f"--sandbox_block_path={folder}/{name}" for name in blocked]
    return flags


if __name__ == "__main__":
    print(" ".join(hermetic_sandbox_flags()))
