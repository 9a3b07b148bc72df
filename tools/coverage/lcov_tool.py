#!/usr/bin/env python3
"""Bazel's coverage post-processing, without @remote_coverage_tools (Java, downloaded).

Two roles, chosen by the flags Bazel passes (see .bazelrc's `coverage` lines):
  output generator (--coverage_output_generator): run by collect_coverage.sh inside each
      test action with --coverage_dir; merges what the test left there (gcov's JSON for
      C++, coverage.py's lcov for Python) into the test's lcov file, keeping only the
      sources of instrumented targets (--source_file_manifest) and dropping system paths
      (--filter_sources).
  report generator (--coverage_report_generator): run once after the tests with
      --reports_file; merges every test's lcov file into one report
      (bazel-out/_coverage/_coverage_report.dat with --combined_report=lcov).
Only line coverage is kept (DA records), summed over tests.

It runs as an executable without runfiles (sh_binary of this file): collect_coverage.sh
starts it with the test's runfiles environment, which is not its own.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
from collections import defaultdict
from pathlib import Path

# source file -> line -> execution count
Coverage = dict[str, dict[int, int]]


def new_coverage() -> Coverage:
    return defaultdict(lambda: defaultdict(int))


def read_lcov(text: str, into: Coverage) -> None:
    source = None
    for line in text.splitlines():
        if line.startswith("SF:"):
            source = line[3:]
        elif line.startswith("DA:") and source is not None:
            number, count = line[3:].split(",")[:2]
            into[source][int(number)] += int(float(count))
        elif line == "end_of_record":
            source = None


def read_gcov_json(path: Path, into: Coverage) -> None:
    """gcov --json-format's output (GCC 9 and later): files, each with its lines' counts
    (a line appears once per function instantiated there; the counts add up)."""
    with gzip.open(path, "rt") as stream:
        document = json.load(stream)
    for entry in document.get("files", []):
        lines = into[entry["file"]]
        for line in entry.get("lines", []):
            lines[int(line["line_number"])] += int(line["count"])


def write_lcov(coverage: Coverage, path: Path) -> None:
    records = []
    for source in sorted(coverage):
        lines = coverage[source]
        records.append(f"SF:{source}")
        records += [f"DA:{number},{lines[number]}" for number in sorted(lines)]
        records.append(f"LH:{sum(1 for count in lines.values() if count > 0)}")
        records.append(f"LF:{len(lines)}")
        records.append("end_of_record")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(record + "\n" for record in records))


def kept(coverage: Coverage, filters: list[str], manifest: set[str] | None) -> Coverage:
    patterns = [re.compile(f) for f in filters]
    result = new_coverage()
    for source, lines in coverage.items():
        if any(p.match(source) for p in patterns):
            continue
        if manifest is not None and source not in manifest:
            continue
        result[source] = lines
    return result


def merge_test_outputs(args: argparse.Namespace) -> None:
    coverage = new_coverage()
    output = Path(args.output_file).resolve()
    for path in sorted(Path(args.coverage_dir).rglob("*")):
        if not path.is_file() or path.resolve() == output:
            continue
        if path.name.endswith(".gcov.json.gz"):
            read_gcov_json(path, coverage)
        elif path.suffix == ".dat":
            read_lcov(path.read_text(errors="replace"), coverage)
    manifest = None
    if args.source_file_manifest and Path(args.source_file_manifest).is_file():
        listed = Path(args.source_file_manifest).read_text().splitlines()
        manifest = {p for p in listed if p and not p.endswith((".gcno", ".profraw"))}
    write_lcov(kept(coverage, args.filter_sources, manifest), output)


def merge_reports(args: argparse.Namespace) -> None:
    coverage = new_coverage()
    for line in Path(args.reports_file).read_text().splitlines():
        report = Path(line.strip())
        if line.strip() and report.is_file():
            read_lcov(report.read_text(errors="replace"), coverage)
    write_lcov(kept(coverage, args.filter_sources, None), Path(args.output_file))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--coverage_dir")
    parser.add_argument("--reports_file")
    parser.add_argument("--output_file", required=True)
    parser.add_argument("--filter_sources", action="append", default=[])
    parser.add_argument("--source_file_manifest")
    # Flags of Bazel's own generator this one has no use for.
    args, _ = parser.parse_known_args()
    if args.coverage_dir:
        merge_test_outputs(args)
    elif args.reports_file:
        merge_reports(args)
    else:
        parser.error(
            "give --coverage_dir (a test's outputs) or --reports_file (the tests' reports)"
        )


if __name__ == "__main__":
    main()
