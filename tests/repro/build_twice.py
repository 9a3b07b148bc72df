#!/usr/bin/env python3
"""Builds the release artifacts twice, from two checkouts, and checks they are bit-identical.

The two builds differ in everything that must not matter: the checkout path (and its
length), the files' modification times, the output base (so every sandbox and execroot
path), the Bazel server and the process ids nvcc and gcc run under. The second build takes
nothing from a cache: the disk cache is turned off and remote results are not accepted, so
every artifact is compiled from nothing. The first is an ordinary build: what the disk
cache holds comes from an earlier build, made from another checkout at another time (in CI,
the test run's, just before), and what it lacks is compiled in the first copy. Either way
each artifact is compared between two compilations in two places, at the cost of one build
from nothing instead of two (half of this script's time). Both run every action they
execute in Bazel's hermetic Linux sandbox (hermetic_sandbox.py), which shows an action its
declared inputs and the machine's runtime only: a build that reads the machine's headers,
compiler or linker fails here. The repository cache stays shared (fetched wheels and
packages are pinned by sha256).

The working tree is copied as git sees it (tests/checkout_copy.py), so uncommitted changes
are checked too.

Prints a digest table; on a mismatch names the first differing artifact, shows where it
differs, and exits 1 (2 when a build fails). .ci/run runs it after the tests. Usage:
  tests/repro/build_twice.py [--keep] [--source DIR] [--bazel_flag=FLAG ...] [TARGET ...]
e.g. --bazel_flag=--compilation_mode=opt to check an optimised build (whose first build
finds nothing in the cache unless one was made before).

It is a script rather than a test under //tests/...: it needs two Bazel servers with output
bases of their own and the cache turned off for one, which a sandboxed test action cannot
start (and a test would itself be cached, when the point is to build from nothing).
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))
from checkout_copy import Checkout, copy_tree, remove_tree  # noqa: E402
from hermetic_sandbox import hermetic_sandbox_flags  # noqa: E402  (beside this script)

# What must come out bit-identical: every output file of these targets that Bazel
# generates (sources they list are skipped). Add a target here to check it too.
# torch_cuda:all holds the real variant's _CUDAC.so and both variants' wheels (the
# simulated one is what tests/wheel installs), torch_cuda/csrc:all the libraries and
# kernels linked into them; torch_core's is the third wheel.
TARGETS = [
    "//third_device/torch_cuda:all",
    "//third_device/torch_cuda/torch_cuda/csrc:all",
    "//torch_core:wheel",
]

# Both builds: no stamping (an unstamped build must not depend on the time or the git
# state), and no uploads (what is built from nothing must not mask a cache entry).
COMMON_FLAGS = [
    "--nostamp",
    "--noremote_upload_local_results",
    "--color=no",
    "--curses=no",
    "--show_progress_rate_limit=30",
]
# The second build runs every action: no disk cache, no remote cache hits.
FROM_NOTHING_FLAGS = ["--disk_cache=", "--noremote_accept_cached"]


def log(message: str) -> None:
    print(f"build_twice: {message}", file=sys.stderr, flush=True)


# The copy built from nothing has its files dated this (2001-01-01); the other's are dated
# when it is made, as a clone would be (and so were the cached results' sources), so a file
# time that gets into an artifact shows up as a difference.
OLD_MTIME = 978307200


def build(checkout: Checkout, targets: Sequence[str], flags: Sequence[str]) -> dict[str, Path]:
    """Builds `targets`; returns their generated output files, by execroot path."""
    events = checkout.output_base.parent / f"{checkout.output_base.name}.bep.json"
    checkout.bazel(
        "build",
        *COMMON_FLAGS,
        *hermetic_sandbox_flags(),
        *flags,
        f"--build_event_json_file={events}",
        "--",
        *targets,
    )
    # The Build Event Protocol lists every output file of the requested targets (as
    # `cquery --output=files` would, without a second analysis).
    outputs = {}
    for line in events.read_text().splitlines():
        event = json.loads(line)
        for file in event.get("namedSetOfFiles", {}).get("files", []):
            name = "/".join([*file.get("pathPrefix", []), file["name"]])
            # Only what Bazel generated: sources are identical by construction.
            if name.startswith("bazel-out/"):
                outputs[name] = Path(urllib.parse.unquote(file["uri"].removeprefix("file://")))
    if not outputs:
        raise RuntimeError(f"bazel built no files for {' '.join(targets)}")
    return outputs


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def strings(path: Path) -> list[str]:
    if shutil.which("strings") is None:
        return []
    result = subprocess.run(["strings", "-a", "-n", "6", str(path)], capture_output=True, text=True)
    return result.stdout.splitlines()


def explain(first: Path, second: Path) -> None:
    """Where two artifacts differ: the first byte, and the printable strings that differ."""
    a, b = first.read_bytes(), second.read_bytes()
    offset = next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )
    print(f"  sizes {len(a)} vs {len(b)}; first difference at byte {offset:#x}")
    diff = list(
        difflib.unified_diff(
            strings(first), strings(second), "build 1", "build 2", n=0, lineterm=""
        )
    )
    if diff:
        print("  strings that differ (first 20 lines):")
        for line in diff[2:22]:
            print(f"    {line}")


def compare(first: dict[str, Path], second: dict[str, Path]) -> bool:
    """Prints `sha256  result  artifact` per artifact; True when all are identical."""
    names = sorted(first.keys() | second.keys())
    print(f"{'sha256 (build 1)':<64}  {'build 2':<9}  {'bytes':>9}  artifact")
    mismatch: str | None = None
    for name in names:
        one, two = (
            sha256(built[name]) if name in built else "(missing)" for built in (first, second)
        )
        size = first[name].stat().st_size if name in first else 0
        print(f"{one:<64}  {'same' if one == two else 'DIFFERENT':<9}  {size:>9}  {name}")
        if one != two:
            print(f"{two:<64}  ^ build 2")
            mismatch = mismatch or name
    if mismatch is None:
        print(f"build_twice: {len(names)} artifacts bit-identical across both builds")
        return True
    print(f"build_twice: FIRST DIFFERENCE: {mismatch}")
    if mismatch in first and mismatch in second:
        explain(first[mismatch], second[mismatch])
    return False


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, default=REPO, help="the checkout to copy")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directories")
    parser.add_argument(
        "--bazel_flag",
        action="append",
        default=[],
        help="a further flag for both builds (repeatable): --bazel_flag=--compilation_mode=opt",
    )
    parser.add_argument("targets", nargs="*", default=TARGETS, help=f"default: {TARGETS}")
    args = parser.parse_args(argv)

    workdir = Path(tempfile.mkdtemp(prefix="build_twice."))
    # Different lengths, so a path that leaks in also shifts every offset after it.
    cached = Checkout(workdir / "a" / "src", workdir / "ob1")
    from_nothing = Checkout(
        workdir / "second_checkout_longer" / "torch_cuda_src", workdir / "output_base_2"
    )
    checkouts = [cached, from_nothing]
    started = time.monotonic()
    try:
        # One snapshot, copied: the tree may change while the first build runs. shutil.copy
        # leaves the first copy's files dated now.
        count = copy_tree(args.source.resolve(), from_nothing.root, mtime=OLD_MTIME)
        shutil.copytree(from_nothing.root, cached.root, symlinks=True, copy_function=shutil.copy)
        builds = [
            (cached, "caches as configured", []),
            (from_nothing, "from nothing", FROM_NOTHING_FLAGS),
        ]
        built = []
        for number, (checkout, caching, flags) in enumerate(builds, 1):
            log(f"build {number} ({caching}): {count} files, {checkout.root}")
            built.append(build(checkout, args.targets, [*flags, *args.bazel_flag]))
        identical = compare(*built)
    except RuntimeError as error:
        log(str(error))
        return 2
    finally:
        for checkout in checkouts:
            if checkout.root.exists():
                checkout.shutdown()
        if args.keep:
            log(f"kept {workdir}")
        else:
            remove_tree(workdir)
    log(f"done in {time.monotonic() - started:.0f}s")
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
