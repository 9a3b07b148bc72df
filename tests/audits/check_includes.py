"""Reports #includes of one target that only a transitive dependency provides, and
quoted includes of this repository's headers not written as their full workspace path.

Called by include_audit.bzl's aspect with the target's sources, two header listings
(`path owner` per line: the headers its direct deps declare, and every reachable header)
and the include directories the compiler searches. Each #include is resolved as the
compiler would: relative to the including file for quoted includes, then in each
include directory in turn.
"""

from __future__ import annotations

import argparse
import posixpath
import re
from pathlib import Path

_INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.MULTILINE)
# A header of this repository: its owner is a main-repository label (//pkg:name).
_PROJECT_OWNER = re.compile(r"^@*//")
# Where generated headers sit; their workspace path is what follows.
_OUTPUT_ROOT = re.compile(r"^bazel-out/[^/]+/(bin|genfiles)/")


def read_headers(listing: Path) -> dict[str, str]:
    headers = {}
    for line in listing.read_text().splitlines():
        path, _, owner = line.partition(" ")
        headers[path] = owner
    return headers


def candidates(source: Path, quote: str, include: str, include_dirs: list[str]) -> list[str]:
    paths = []
    if quote == '"':
        paths.append(posixpath.normpath(posixpath.join(posixpath.dirname(str(source)), include)))
    paths += [posixpath.normpath(posixpath.join(folder, include)) for folder in include_dirs]
    return paths


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--target", required=True)
    parser.add_argument("--declared", type=Path, required=True)
    parser.add_argument("--reachable", type=Path, required=True)
    parser.add_argument("--include-dirs", type=Path, required=True)
    parser.add_argument("--report", type=Path, required=True)
    parser.add_argument("sources", nargs="+", type=Path)
    options = parser.parse_args()
    declared = read_headers(options.declared)
    reachable = read_headers(options.reachable)
    include_dirs = options.include_dirs.read_text().split()
    lines = []
    for source in options.sources:
        for quote, include in _INCLUDE.findall(source.read_text()):
            paths = candidates(source, quote, include, include_dirs)
            # The compiler takes the first directory that has the file.
            found = next((p for p in paths if p in declared or p in reachable), None)
            if found is None:
                continue
            owner = declared.get(found) or reachable[found]
            workspace_path = _OUTPUT_ROOT.sub("", found)
            if quote == '"' and _PROJECT_OWNER.match(owner) and include != workspace_path:
                lines.append(
                    f'{options.target}: {source} includes "{include}": write its full '
                    f'workspace path, #include "{workspace_path}"'
                )
            if found in declared:
                continue
            lines.append(
                f'{options.target}: {source} includes "{include}" from {reachable[found]}, '
                "which is not a direct dep: add it to deps"
            )
    options.report.write_text("".join(line + "\n" for line in lines))


if __name__ == "__main__":
    main()
