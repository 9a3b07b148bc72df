#!/usr/bin/env python3
"""Make @host_gcc's unpacked Debian packages a self-contained toolchain and sysroot.

Run by toolchains/cc/host_gcc_repository.bzl in the new repository:
`host_gcc_tree.py ROOT GLIBC_DEB`. It
- rewrites Debian's absolute symlinks (/lib64/ld-linux-x86-64.so.2 -> /lib/...) as relative
  ones inside ROOT, so that no link leads to the machine's own files, and drops links
  that lead nowhere, usr/share and etc;
- gathers in tool_libs/ the libraries that the compiler's programs link (libisl, libmpfr,
  libbfd, libstdc++, ...), every one but glibc's: the programs run on the machine's glibc,
  while the sysroot's glibc is only linked against;
- writes bin/<tool>, the wrappers Bazel and nvcc run: each starts the pinned program with
  tool_libs as its library path, and gcc with ROOT as its sysroot, its binutils first
  (libexec/) and gcc.specs, which names the standard include directories relative to the
  sysroot.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools" / "bazel_install"))

from prefix_patching import gather_tool_libs, glibc_files, relativize_symlinks

TRIPLE = "x86_64-linux-gnu"
# bin/<name> runs usr/bin/<TRIPLE>-<program>.
TOOLS = {
    "gcc": "gcc-12",
    # The C++ driver (gcc that links libstdc++), for what builds outside Bazel's actions:
    # the extension builds that tests run (CXX). Bazel's own actions run gcc.
    "g++": "g++-12",
    "cpp": "cpp-12",
    "gcov": "gcov-12",
    "ar": "ar",
    "ld": "ld",
    "nm": "nm",
    "objcopy": "objcopy",
    "objdump": "objdump",
    "strip": "strip",
    "c++filt": "c++filt",
    "dwp": "dwp",
}
# The wrapper's own location names the root: as given when Bazel runs it by its exec path
# (external/<repo>/bin/gcc) or nvcc by the one it was given, so that paths stay relative;
# resolved when it is run through a link of another name (`bazel coverage` runs gcov as
# <coverage dir>/gcov).
WRAPPER = """#!/bin/sh
# Written by toolchains/cc/host_gcc_tree.py: @host_gcc's {program}, on its own libraries.
case "$0" in
  */bin/*) root="${{0%/bin/*}}" ;;
  bin/*) root=. ;;
  *) self=$(readlink -f "$0") && root="${{self%/bin/*}}" ;;
esac
LD_LIBRARY_PATH="$root/tool_libs" exec "$root/{path}" {flags}"$@"
"""
# gcc: the root is its sysroot; its assembler and linkers are looked for in libexec/ first;
# -no-canonical-prefixes keeps the paths of its own programs as given (relative to the
# execution root, not resolved to where the sandbox's symlinks lead); gcc.specs names the
# standard header directories itself.
GCC_FLAGS = '--sysroot="$root" -B"$root/libexec/" -no-canonical-prefixes -specs="$root/gcc.specs" '
# What gcc runs from its own directory: the compilers, the linker driver, LTO.
GCC_LIBEXEC = f"usr/lib/gcc/{TRIPLE}/12"
GCC_INTERNAL_PROGRAMS = ("cc1", "cc1plus", "collect2", "lto1", "lto-wrapper")
# Debian's GCC makes its standard include directories absolute (the real path of the
# installation), which would put this machine's output base into every dependency file
# and debug record. These specs drop them (-nostdinc) and name the same directories again
# relative to the sysroot (%R, as given on the command line), in gcc's own order: libstdc++'s
# for C++ (cc1plus) first, then gcc's own and glibc's (cc1, and cpp for -E) after any user
# -isystem directory.
SPECS = """*cpp_options:
+ {c_dirs}

*cc1:
+ {c_dirs}

*cc1plus:
+ {cxx_dirs}

"""
C_INCLUDE_DIRS = (f"{GCC_LIBEXEC}/include", f"usr/include/{TRIPLE}", "usr/include")
CXX_INCLUDE_DIRS = (
    "usr/include/c++/12",
    f"usr/include/{TRIPLE}/c++/12",
    "usr/include/c++/12/backward",
)


# The programs gcc and collect2 look up by their plain names (collect2 searches directories
# only, so a -B prefix such as usr/bin/x86_64-linux-gnu- would not serve it): without them
# there, a link would find the machine's /usr/bin/ld on PATH.
GCC_PROGRAMS = ("as", "ld", "ld.bfd", "ld.gold")


def pinned_program(program: str) -> str:
    """Where the packages put a binutils or gcc program, relative to the root."""
    return f"usr/bin/{TRIPLE}-{program}"


def programs_run() -> list[str]:
    """Every program the wrappers start, directly or through gcc, relative to the root
    (update_host_gcc_lock.py proves with ldd that they link only pinned libraries)."""
    tools = {pinned_program(program) for program in (*TOOLS.values(), *GCC_PROGRAMS)}
    internal = {f"{GCC_LIBEXEC}/{program}" for program in GCC_INTERNAL_PROGRAMS}
    return sorted(tools | internal)


def require(root: Path, relative: str, directory: bool = False) -> Path:
    path = root / relative
    if not (path.is_dir() if directory else path.exists()):
        raise SystemExit(f"host_gcc_tree.py: no {relative} in the packages")
    return path


def write_specs(root: Path) -> None:
    c_dirs = " ".join(f"-idirafter %R/{folder}" for folder in C_INCLUDE_DIRS)
    cxx_dirs = " ".join(f"-isystem %R/{folder}" for folder in CXX_INCLUDE_DIRS)
    for folder in (*C_INCLUDE_DIRS, *CXX_INCLUDE_DIRS):
        require(root, folder, directory=True)
    (root / "gcc.specs").write_text(SPECS.format(c_dirs=f"-nostdinc {c_dirs}", cxx_dirs=cxx_dirs))


# Bazel's Unix toolchain configuration names an llvm-cov for clang's coverage; GCC's is gcov.
NO_LLVM_COV = """#!/bin/sh
echo "llvm-cov: @host_gcc is GCC, whose coverage is gcov's (bazel coverage uses it)" >&2
exit 2
"""


def link_gcc_programs(root: Path) -> None:
    libexec = root / "libexec"
    libexec.mkdir()
    for program in GCC_PROGRAMS:
        target = require(root, pinned_program(program))
        (libexec / program).symlink_to(os.path.relpath(target, libexec))


def write_wrappers(root: Path) -> None:
    (root / "bin").mkdir()
    (root / "bin" / "llvm-cov").write_text(NO_LLVM_COV)
    (root / "bin" / "llvm-cov").chmod(0o755)
    for name, program in TOOLS.items():
        require(root, pinned_program(program))
        flags = GCC_FLAGS if name in ("gcc", "g++") else ""
        wrapper = root / "bin" / name
        wrapper.write_text(
            WRAPPER.format(program=program, path=pinned_program(program), flags=flags)
        )
        wrapper.chmod(0o755)


def main() -> int:
    if len(sys.argv) != 3:
        print(f"usage: {sys.argv[0]} ROOT GLIBC_DEB", file=sys.stderr)
        return 2
    root, glibc_deb = Path(sys.argv[1]), Path(sys.argv[2])
    # Documentation, translations, gdb's and lintian's files, and the packages' /etc: no
    # compile or link reads them.
    for unused in ("usr/share", "etc"):
        shutil.rmtree(root / unused, ignore_errors=True)
    rewritten, dropped = relativize_symlinks(root)
    glibc = {Path(path).name for path in glibc_files([glibc_deb])}
    libraries = gather_tool_libs(root, skip=glibc)
    write_specs(root)
    link_gcc_programs(root)
    write_wrappers(root)
    print(f"{rewritten} links made relative, {dropped} dangling dropped, {libraries} libraries")
    return 0


if __name__ == "__main__":
    sys.exit(main())
