#!/usr/bin/env python3
"""Regenerate bazel_debs.lock: the sid closure of bazel-bootstrap and patchelf.

Run it when Debian drops a pinned version from its mirror (the installer then says so)
or to move to a newer Bazel packaging. The closure is computed against an empty dpkg
status, so the prefix is self-contained whatever the machine has installed.
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

from deb_closure import pin_versions
from deb_lock import LOCK_PATH, PinnedDeb, write_lock
from debian_apt import PrivateApt, system_mirror

ROOT_PACKAGES = ("bazel-bootstrap", "patchelf")
URI_LINE = re.compile(r"^'(?P<uri>[^']+)' (?P<file>\S+) (?P<size>\d+) ")


def resolve_closure(apt: PrivateApt) -> list[PinnedDeb]:
    listing = apt.run(
        "apt-get", "install", "-t", "sid", "--print-uris", "-qq", "-y",
        "--no-install-recommends", *ROOT_PACKAGES,
    )
    wanted = []
    for line in listing.splitlines():
        match = URI_LINE.match(line)
        if match:
            package, version = match.group("file").split("_")[:2]
            wanted.append(f"{package}={version.replace('%3a', ':')}")
    return pin_versions(apt, wanted)


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="bazel-lock-") as state:
        apt = PrivateApt(Path(state), system_mirror())
        apt.update()
        pins = resolve_closure(apt)
    write_lock(pins)
    total_mb = sum(pin.size for pin in pins) / 1e6
    print(f"wrote {LOCK_PATH}: {len(pins)} packages, {total_mb:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
