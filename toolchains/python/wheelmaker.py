"""Writes a wheel (PEP 427) that is bit-identical whenever its inputs are (py_wheel.bzl).

Nothing in the archive depends on when or where it was built: every entry is dated
1980-01-01 00:00:00 (the zip format's earliest date), its permissions come from its kind
(0755 for shared libraries, 0644 otherwise), never from the file system; entries are in
sorted order with the .dist-info directory last, and deflated at a fixed level.
"""

from __future__ import annotations

import argparse
import base64
import csv
import hashlib
import io
import re
import sys
import zipfile
from collections.abc import Sequence
from pathlib import Path

ZIP_DATE = (1980, 1, 1, 0, 0, 0)
GENERATOR = "torch_cuda py_wheel (toolchains/python/wheelmaker.py)"


def distinfo_name(name: str, version: str) -> str:
    """`<name>-<version>.dist-info`, as PEP 427 escapes both."""
    escaped = re.sub(r"[^\w\d.]+", "_", name)
    return f"{escaped}-{version.replace('-', '_')}.dist-info"


def record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + digest.decode("ascii")


def metadata(args: argparse.Namespace) -> str:
    lines = ["Metadata-Version: 2.1", f"Name: {args.name}", f"Version: {args.version}"]
    if args.summary:
        lines.append(f"Summary: {args.summary}")
    if args.python_requires:
        lines.append(f"Requires-Python: {args.python_requires}")
    lines += [f"Requires-Dist: {requirement}" for requirement in args.requires]
    return "\n".join(lines) + "\n"


def wheel_file(args: argparse.Namespace) -> str:
    lines = [
        "Wheel-Version: 1.0",
        f"Generator: {GENERATOR}",
        f"Root-Is-Purelib: {'true' if args.platform == 'any' else 'false'}",
    ]
    for python in args.python_tag.split("."):
        for abi in args.abi.split("."):
            for platform in args.platform.split("."):
                lines.append(f"Tag: {python}-{abi}-{platform}")
    return "\n".join(lines) + "\n"


def add(archive: zipfile.ZipFile, path: str, data: bytes) -> None:
    info = zipfile.ZipInfo(path, date_time=ZIP_DATE)
    info.create_system = 3  # Unix, so external_attr holds the mode
    mode = 0o755 if re.search(r"\.so(\.\d+)*$", path) else 0o644
    info.external_attr = (0o100000 | mode) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(info, data, compresslevel=6)


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--files", type=Path, required=True, help="lines: PATH_IN_WHEEL\\tFILE")
    parser.add_argument("--name", required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("--python_tag", required=True)
    parser.add_argument("--abi", required=True)
    parser.add_argument("--platform", required=True)
    parser.add_argument("--summary", default="")
    parser.add_argument("--python_requires", default="")
    parser.add_argument("--requires", action="append", default=[])
    args = parser.parse_args(argv)

    files = dict(line.split("\t", 1) for line in args.files.read_text().splitlines() if line)
    distinfo = distinfo_name(args.name, args.version)
    contents = [(path, Path(files[path]).read_bytes()) for path in sorted(files)]
    contents += [
        (f"{distinfo}/METADATA", metadata(args).encode()),
        (f"{distinfo}/WHEEL", wheel_file(args).encode()),
    ]
    record = io.StringIO()
    writer = csv.writer(record, lineterminator="\n")
    writer.writerows((path, record_hash(data), len(data)) for path, data in contents)
    writer.writerow((f"{distinfo}/RECORD", "", ""))
    contents.append((f"{distinfo}/RECORD", record.getvalue().encode()))

    with zipfile.ZipFile(args.out, "w") as archive:
        for path, data in contents:
            add(archive, path, data)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
