#!/usr/bin/env python3
"""Install Bazel 7 from pinned Debian sid packages into a private, self-contained prefix.

Nothing on the system changes: packages are fetched into a private apt state, unpacked
with dpkg-deb into a temporary directory beside the prefix, their ELF files re-pointed at
the prefix's own glibc with the prefix's patchelf, and the directory renamed into place
only when complete. A hash mismatch, a missing package or a failed step leaves no prefix.
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

from deb_lock import LOCK_PATH, PinnedDeb, read_lock
from debian_apt import AptError, PrivateApt, system_mirror
from prefix_patching import patch_prefix

COMPLETE_MARKER = ".complete"
PARALLEL_DOWNLOADS = 8


class InstallError(RuntimeError):
    pass


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for chunk in iter(lambda: stream.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def fetch_pinned(apt: PrivateApt, pins: list[PinnedDeb], debs_dir: Path) -> list[Path]:
    def fetch(pin: PinnedDeb) -> Path:
        target = debs_dir / pin.file_name
        try:
            apt.download(pin.pool_path, target, pin.sha256)
        except AptError as error:
            raise InstallError(
                f"could not fetch {pin.package} {pin.version} ({pin.pool_path}).\n{error}\n"
                "If the mirror no longer carries this version, regenerate the lock with "
                "`python3 tools/bazel_install/update_lock.py` and commit it."
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


def install(prefix: Path, lock: Path) -> None:
    pins = read_lock(lock)
    prefix.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{prefix.name}.tmp-", dir=prefix.parent))
    try:
        apt = PrivateApt(staging / "apt", system_mirror())
        (staging / "debs").mkdir()
        print(f"tools/bazel: fetching {len(pins)} pinned Debian packages ...", file=sys.stderr)
        debs = fetch_pinned(apt, pins, staging / "debs")
        root = staging / "root"
        print("tools/bazel: unpacking and relocating into the private prefix ...", file=sys.stderr)
        unpack(debs, root)
        patch_prefix(staging_root=root, final_root=prefix, debs=debs)
        (root / COMPLETE_MARKER).write_text("".join(f"{p.file_name}\n" for p in pins))
        os.rename(root, prefix)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--prefix", type=Path, required=True)
    parser.add_argument("--lock", type=Path, default=LOCK_PATH)
    args = parser.parse_args()
    prefix: Path = args.prefix.absolute()
    prefix.parent.mkdir(parents=True, exist_ok=True)
    # Two first runs at once (a build and a test in two shells) install once.
    with open(prefix.parent / ".install.lock", "w") as guard:
        fcntl.flock(guard, fcntl.LOCK_EX)
        if (prefix / COMPLETE_MARKER).exists():
            return 0
        if prefix.exists():
            shutil.rmtree(prefix)  # an incomplete prefix from an older installer
        try:
            install(prefix, args.lock)
        except (InstallError, AptError, subprocess.CalledProcessError) as error:
            print(f"tools/bazel: install failed, no prefix left behind:\n{error}", file=sys.stderr)
            return 1
    print(f"tools/bazel: Bazel installed in {prefix}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
