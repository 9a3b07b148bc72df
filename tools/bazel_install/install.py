#!/usr/bin/env python3
"""Install pinned Debian packages into a private, self-contained prefix.

Used for Bazel 7 (Debian sid packages, tools/bazel), nginx and graphviz (bookworm
packages, tools/remote_cache, tools/graphviz). Nothing on the system changes: packages are
fetched into a private apt state, unpacked with dpkg-deb into a temporary directory beside
the prefix, relocated (`--relocate bazel`: ELF files re-pointed at the prefix's own glibc
with the prefix's patchelf; `--relocate symlinks`: absolute symlinks re-rooted only, for
packages that run on the system's glibc), optionally configured (`--configure CMD`: run
as `CMD STAGING_ROOT FINAL_PREFIX`, the postinst step a prefix needs, graphviz's `dot -c`
say), and the directory renamed into place only when complete. A hash mismatch, a missing
package or a failed step (a configure command exiting non-zero included) leaves no prefix.
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

# Its modules lie beside it, and the script's folder is not on sys.path under
# PYTHONSAFEPATH, which a Bazel py_binary exports to what it runs (`bazel run
# //tools/depgraph` runs tools/graphviz, which may install graphviz).
sys.path.insert(0, str(Path(__file__).resolve().parent))

from deb_lock import LOCK_PATH, PinnedDeb, read_lock
from debian_apt import AptError, PrivateApt, system_mirror
from prefix_patching import patch_prefix, reroot_symlinks

COMPLETE_MARKER = ".complete"
PARALLEL_DOWNLOADS = 8
RELOCATIONS = ("bazel", "symlinks")


class InstallError(RuntimeError):
    pass


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for chunk in iter(lambda: stream.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def fetch_pinned(
    apt: PrivateApt, pins: list[PinnedDeb], debs_dir: Path, lock: Path = LOCK_PATH
) -> list[Path]:
    def fetch(pin: PinnedDeb) -> Path:
        target = debs_dir / pin.file_name
        try:
            apt.download(pin.pool_path, target, pin.sha256)
        except AptError as error:
            if "Hash Sum mismatch" in str(error):
                raise InstallError(
                    f"sha256 mismatch for {pin.file_name}: {lock.name} pins {pin.sha256}, the "
                    "mirror's file differs (see below). The lock was edited or the mirror "
                    f"serves another file; nothing was installed.\n{error}"
                ) from error
            raise InstallError(
                f"could not fetch {pin.package} {pin.version} ({pin.pool_path}).\n{error}\n"
                f"If the mirror no longer carries this version, regenerate {lock.name} with "
                "the script its header names, and commit it."
            ) from error
        actual = sha256_of(target)
        if actual != pin.sha256:
            raise InstallError(
                f"sha256 mismatch for {pin.file_name}: lock says {pin.sha256}, got {actual}. "
                "The download is corrupt or the mirror changed the file; nothing was installed."
            )
        return target

    with ThreadPoolExecutor(PARALLEL_DOWNLOADS) as pool:
        return list(pool.map(fetch, pins))


def unpack(debs: list[Path], root: Path) -> None:
    for deb in debs:
        subprocess.run(["dpkg-deb", "-x", str(deb), str(root)], check=True)


def configure(command: Path, root: Path, prefix: Path, label: str) -> None:
    print(f"{label}: configuring the prefix ({command.name}) ...", file=sys.stderr)
    result = subprocess.run([str(command), str(root), str(prefix)], check=False)
    if result.returncode != 0:
        raise InstallError(
            f"configuring the prefix failed: {command} exited {result.returncode} (see above)"
        )


def install(
    prefix: Path,
    lock: Path,
    label: str = "tools/bazel",
    relocate: str = "bazel",
    configure_command: Path | None = None,
) -> None:
    try:
        pins = read_lock(lock)
    except (OSError, ValueError) as error:
        raise InstallError(f"cannot read the lock file {lock}: {error}") from error
    if not pins:
        raise InstallError(f"the lock file {lock} pins no packages")
    prefix.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{prefix.name}.tmp-", dir=prefix.parent))
    try:
        apt = PrivateApt(staging / "apt", system_mirror())
        (staging / "debs").mkdir()
        print(f"{label}: fetching {len(pins)} pinned Debian packages ...", file=sys.stderr)
        debs = fetch_pinned(apt, pins, staging / "debs", lock)
        root = staging / "root"
        print(f"{label}: unpacking and relocating into the private prefix ...", file=sys.stderr)
        unpack(debs, root)
        if relocate == "bazel":
            patch_prefix(staging_root=root, final_root=prefix, debs=debs)
        else:
            reroot_symlinks(root, prefix)
        if configure_command is not None:
            configure(configure_command, root, prefix, label)
        (root / COMPLETE_MARKER).write_text("".join(f"{p.file_name}\n" for p in pins))
        os.rename(root, prefix)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--prefix", type=Path, required=True)
    parser.add_argument("--lock", type=Path, default=LOCK_PATH)
    parser.add_argument("--label", default="tools/bazel", help="names the tool in messages")
    parser.add_argument("--relocate", choices=RELOCATIONS, default="bazel")
    parser.add_argument(
        "--configure", type=Path, metavar="CMD",
        help="an executable run as `CMD STAGING_ROOT FINAL_PREFIX` before the prefix is "
        "marked complete; a non-zero exit fails the install",
    )
    args = parser.parse_args()
    prefix: Path = args.prefix.absolute()
    label: str = args.label
    prefix.parent.mkdir(parents=True, exist_ok=True)
    # Two first runs at once (a build and a test in two shells) install once. One lock per
    # prefix: installing nginx need not wait for a Bazel install.
    with open(prefix.parent / f".{prefix.name}.install.lock", "w") as guard:
        fcntl.flock(guard, fcntl.LOCK_EX)
        if (prefix / COMPLETE_MARKER).exists():
            return 0
        if prefix.exists():
            shutil.rmtree(prefix)  # an incomplete prefix from an older installer
        try:
            install(prefix, args.lock, label, args.relocate, args.configure)
        except (InstallError, AptError, OSError, subprocess.CalledProcessError) as error:
            print(f"{label}: install failed, no prefix left behind:\n{error}", file=sys.stderr)
            return 1
    print(f"{label}: installed {prefix.name} in {prefix.parent}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
