"""The package closure of a private prefix that runs on the system's glibc, and its proof.

Shared by the lock generators of such prefixes (tools/remote_cache_install's nginx,
tools/graphviz_install's graphviz, toolchains/cc's @host_gcc): `resolve` follows the roots'
Depends and Pre-Depends through the private apt state, leaving out what the machine always
has (glibc) and what the prefix does not need; `check_links_only_pinned` unpacks the pins
and proves with ldd that the named binaries take every library but glibc from them;
`regenerate_bookworm_lock` does both and writes the lock.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from collections.abc import Iterable
from pathlib import Path

from deb_lock import PinnedDeb, write_lock
from debian_apt import PrivateApt, system_mirror

DEPENDS_FIELDS = ("Pre-Depends", "Depends")
GLIBC_SONAMES = re.compile(r"^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt)\b")
LIB_DIRS = ("usr/lib/x86_64-linux-gnu", "lib/x86_64-linux-gnu")


def pin_versions(apt: PrivateApt, wanted: list[str]) -> list[PinnedDeb]:
    """Pins for `package=version` (or bare `package`: its candidate) from the apt records."""
    records = apt.run("apt-cache", "show", "--no-all-versions", *wanted)
    pins = []
    for record in records.strip().split("\n\n"):
        fields = dict(
            line.split(": ", 1) for line in record.splitlines() if ": " in line and line[0] != " "
        )
        pins.append(
            PinnedDeb(
                fields["Package"], fields["Version"], fields["SHA256"],
                int(fields["Size"]), fields["Filename"],
            )
        )
    return pins


def runtime_depends(apt: PrivateApt, package: str, left_out: set[str]) -> list[str]:
    """The candidate's Depends and Pre-Depends (first of each alternative), less `left_out`."""
    record = apt.run("apt-cache", "show", "--no-all-versions", package)
    names = []
    for line in record.splitlines():
        field, _, value = line.partition(": ")
        if field not in DEPENDS_FIELDS:
            continue
        for clause in value.split(","):
            name = re.split(r"[\s(:|]", clause.strip(), maxsplit=1)[0]
            if name not in left_out:
                names.append(name)
    return names


def resolve(
    apt: PrivateApt, roots: Iterable[str], from_system: set[str], not_needed: set[str]
) -> list[PinnedDeb]:
    """Pins for the roots and their runtime dependencies, candidates of the apt state.

    from_system: packages the machine always has (glibc, the loader itself). not_needed:
    packages whose files the prefix never uses (config, docs, libraries only of parts of a
    package that the prefix does not run); check_links_only_pinned proves the choice.
    """
    wanted = list(roots)
    todo = list(wanted)
    while todo:
        for name in runtime_depends(apt, todo.pop(), from_system | not_needed):
            if name not in wanted:
                wanted.append(name)
                todo.append(name)
    return pin_versions(apt, wanted)


def check_links_only_pinned(
    apt: PrivateApt, pins: list[PinnedDeb], scratch: Path, binaries: Iterable[str]
) -> Path:
    """Unpack the pins under scratch and prove (ldd) that each binary, a path relative to
    the root, takes every library but glibc from them. Returns the unpacked root."""
    root = scratch / "root"
    scratch.mkdir(parents=True, exist_ok=True)
    for pin in pins:
        deb = scratch / pin.file_name
        apt.download(pin.pool_path, deb, pin.sha256)
        subprocess.run(["dpkg-deb", "-x", str(deb), str(root)], check=True)
    env = {**os.environ, "LD_LIBRARY_PATH": ":".join(str(root / d) for d in LIB_DIRS)}
    for binary in binaries:
        if not (root / binary).exists():
            raise SystemExit(f"no pinned package ships {binary}; add its package to the roots")
        listing = subprocess.run(
            ["ldd", str(root / binary)], capture_output=True, text=True, env=env, check=True,
        ).stdout
        for line in listing.splitlines():
            soname, _, where = line.strip().partition(" => ")
            if GLIBC_SONAMES.match(Path(soname).name) or where.startswith(str(root)):
                continue
            raise SystemExit(
                f"{binary} links {soname} from outside the pinned packages ({where.strip()}); "
                "add the package that ships it to the lock's roots"
            )
    return root


def regenerate_bookworm_lock(
    lock: Path,
    header: str,
    roots: Iterable[str],
    from_system: set[str],
    not_needed: set[str],
    binaries: Iterable[str],
) -> int:
    """Resolve the roots' closure in bookworm, prove the binaries' links, write the lock."""
    with tempfile.TemporaryDirectory(prefix=f"{lock.stem}-") as state:
        apt = PrivateApt(Path(state), system_mirror(), suites=(("bookworm", ""),))
        apt.update()
        pins = resolve(apt, roots, from_system, not_needed)
        check_links_only_pinned(apt, pins, Path(state) / "check", binaries)
    write_lock(pins, lock, header)
    total_mb = sum(pin.size for pin in pins) / 1e6
    print(f"wrote {lock}: {len(pins)} packages, {total_mb:.1f} MB")
    return 0
