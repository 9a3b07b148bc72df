"""Make an unpacked set of Debian packages run from a private prefix.

Debian's files assume they live under /: absolute symlinks, ELF interpreters and library
search paths, and jar manifests with absolute Class-Path entries. Each is re-rooted into
the prefix. The staging directory is patched with the *final* prefix path, since it is
renamed into place afterwards.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bazel_rc import write_prefix_rc

LIB_DIRS = ("usr/lib/x86_64-linux-gnu", "lib/x86_64-linux-gnu")
LOADER = "usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"
CLASSPATH_LIST = "usr/share/bazel/bazel_classpath_debian_depends.txt"
ELF_MAGIC = b"\x7fELF"
PATCHELF_RUNTIME = (
    "ld-linux-x86-64.so.2", "libc.so.6", "libm.so.6", "libstdc++.so.6", "libgcc_s.so.1",
)


def reroot_symlinks(staging_root: Path, final_root: Path) -> None:
    for dirpath, dirnames, filenames in os.walk(staging_root):
        for name in dirnames + filenames:
            link = Path(dirpath) / name
            if link.is_symlink() and os.readlink(link).startswith("/"):
                target = os.readlink(link)
                link.unlink()
                link.symlink_to(f"{final_root}{target}")


def relativize_symlinks(root: Path) -> tuple[int, int]:
    """Debian's absolute links rewritten relative inside root (no link leads to the
    machine's own files); links that lead nowhere dropped. Returns (rewritten, dropped)."""
    rewritten = dropped = 0
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            link = Path(dirpath) / name
            if not link.is_symlink():
                continue
            target = os.readlink(link)
            if target.startswith("/"):
                link.unlink()
                link.symlink_to(os.path.relpath(root / target.lstrip("/"), link.parent))
                rewritten += 1
            if not link.exists():
                link.unlink()
                dropped += 1
    return rewritten, dropped


def gather_tool_libs(root: Path, skip: set[str]) -> int:
    """Links in root/tool_libs to the libraries of the unpacked packages, but those named in
    `skip` (glibc's, which must keep their own loader): the wrappers' library path."""
    tool_libs = root / "tool_libs"
    tool_libs.mkdir()
    count = 0
    for folder in LIB_DIRS:
        for library in sorted((root / folder).glob("lib*.so.*")):
            if library.name in skip or (tool_libs / library.name).exists():
                continue
            (tool_libs / library.name).symlink_to(os.path.relpath(library, tool_libs))
            count += 1
    return count


def glibc_files(debs: list[Path]) -> set[str]:
    """Files of glibc itself, which must keep their own loader and search path."""
    libc_debs = [deb for deb in debs if deb.name.startswith("libc6_")]
    listing = subprocess.run(
        ["dpkg-deb", "-c", *map(str, libc_debs)], capture_output=True, text=True, check=True
    ).stdout
    return {line.split()[5].lstrip(".") for line in listing.splitlines()}


def elf_files(staging_root: Path, skip: set[str]) -> list[Path]:
    found = []
    for top in ("usr/bin", "usr/libexec", "usr/lib"):
        for dirpath, _, filenames in os.walk(staging_root / top):
            for name in filenames:
                path = Path(dirpath) / name
                relative = "/" + str(path.relative_to(staging_root))
                if path.is_symlink() or relative in skip:
                    continue
                if not (os.access(path, os.X_OK) or ".so" in name):
                    continue
                with path.open("rb") as stream:
                    if stream.read(4) == ELF_MAGIC:
                        found.append(path)
    return found


def isolated_patchelf(staging_root: Path, tool_dir: Path) -> list[str]:
    """The prefix's own patchelf, run through the prefix's loader: no system tool needed.

    It runs from copies, since rewriting a library that a running patchelf has mapped
    (libstdc++, libc) crashes it with SIGBUS.
    """
    tool_dir.mkdir()
    for name in PATCHELF_RUNTIME:
        source = next(p for d in LIB_DIRS if (p := staging_root / d / name).exists())
        shutil.copy(source, tool_dir / name)
    shutil.copy(staging_root / "usr/bin/patchelf", tool_dir / "patchelf")
    loader = str(tool_dir / Path(LOADER).name)
    return [loader, "--library-path", str(tool_dir), str(tool_dir / "patchelf")]


def patch_elves(staging_root: Path, final_root: Path, debs: list[Path]) -> int:
    patchelf = isolated_patchelf(staging_root, staging_root.parent / "patchelf")
    final_libs = ":".join(str(final_root / d) for d in LIB_DIRS)
    final_loader = str(final_root / LOADER)

    def patch(path: Path) -> None:
        def run(*args: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run([*patchelf, *args, str(path)], capture_output=True, text=True)

        old_rpath = run("--print-rpath").stdout.strip()
        if run("--print-interpreter").returncode == 0:
            run("--set-interpreter", final_loader).check_returncode()
        rpath = final_libs + (f":{old_rpath}" if old_rpath else "")
        run("--set-rpath", rpath).check_returncode()

    files = elf_files(staging_root, glibc_files(debs))
    with ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        list(pool.map(patch, files))
    return len(files)


def jar_manifest_deps(jar: Path) -> list[str]:
    try:
        manifest = zipfile.ZipFile(jar).read("META-INF/MANIFEST.MF").decode("utf-8", "replace")
    except (OSError, KeyError, zipfile.BadZipFile):
        return []
    manifest = manifest.replace("\r\n ", "").replace("\n ", "")
    deps = []
    for line in manifest.splitlines():
        if line.startswith("Class-Path:"):
            deps.extend(line.split(":", 1)[1].split())
    return deps


def expand_bazel_classpath(staging_root: Path, final_root: Path) -> None:
    """Debian's Bazel launcher reads jars from a list; add their manifests' transitive deps.

    Without them the server dies with NoClassDefFoundError (io/perfmark/PerfMark).
    """
    listing = staging_root / CLASSPATH_LIST
    todo = [line.strip() for line in listing.read_text().splitlines() if line.strip()]
    seen: list[str] = []
    while todo:
        jar = todo.pop(0)
        if jar in seen:
            continue
        seen.append(jar)
        for dep in jar_manifest_deps(Path(f"{staging_root}{jar}")):
            absolute = dep if dep.startswith("/") else os.path.join(os.path.dirname(jar), dep)
            absolute = os.path.normpath(absolute)
            if Path(f"{staging_root}{absolute}").exists():
                todo.append(absolute)
    listing.write_text("".join(f"{final_root}{jar}\n" for jar in seen))


def patch_prefix(staging_root: Path, final_root: Path, debs: list[Path]) -> None:
    reroot_symlinks(staging_root, final_root)
    patch_elves(staging_root, final_root, debs)
    expand_bazel_classpath(staging_root, final_root)
    write_prefix_rc(staging_root, final_root)
