#!/usr/bin/env python3
"""Where a build's time goes: compile and link seconds per target, from Bazel's profile.

Bazel writes a JSON trace of every command (`<output_base>/command.profile.gz`, or
`--profile=FILE`). Each executed action is an "action processing" event whose name says
what it built ("Compiling CUDA a/b/x.cu", "Linking a/b/libx.so"); `bazel query` maps each
source to the rule that lists it, so compile time adds up per target. Prints three tables:
targets by compile seconds, the slowest single actions, and seconds per mnemonic.

Usage (after a build of interest, e.g. a cold one or a header touch):
  python3 benchmarks/build/compile_profile.py [--profile FILE] [--top N] [PATTERN ...]
PATTERN: the packages whose rules own the sources (default: //torch_core/... and
//third_device/...).
"""

from __future__ import annotations

import argparse
import collections
import gzip
import json
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BAZEL = REPO / "tools" / "bazel"
DEFAULT_PATTERNS = ["//torch_core/...", "//third_device/..."]
_NOT_COMPILING = {"filegroup", "genrule", "py_library", "py_binary", "py_test", "alias"}
# "Compiling CUDA third_device/.../sort.cu", "Compiling torch_core/csrc/x.cpp".
_COMPILE = re.compile(r"^Compiling (?:CUDA )?(\S+)$")


def bazel_output(*args: str) -> str:
    result = subprocess.run(
        [str(BAZEL), *args], cwd=REPO, capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        raise SystemExit(f"`bazel {' '.join(args)}` failed:\n{result.stderr[-2000:]}")
    return result.stdout


def source_owners(patterns: list[str]) -> dict[str, str]:
    """Source path (root-relative) -> the rule whose srcs list it."""
    expression = " + ".join(f"kind(rule, {p})" for p in patterns)
    owners = {}
    for line in bazel_output("query", expression, "--output=streamed_jsonproto").splitlines():
        rule = json.loads(line).get("rule", {})
        # Source groups (filegroups) and generators list sources they do not compile.
        if rule.get("ruleClass") in _NOT_COMPILING:
            continue
        for attribute in rule.get("attribute", []):
            if attribute["name"] != "srcs":
                continue
            for label in attribute.get("stringListValue", []):
                package, _, name = label.lstrip("/").partition(":")
                owners[f"{package}/{name}" if package else name] = rule["name"]
    return owners


def executed_actions(profile: Path) -> list[tuple[str, str, float]]:
    """(mnemonic, description, seconds) of every action the command executed."""
    with gzip.open(profile, "rt") if profile.suffix == ".gz" else profile.open() as stream:
        trace = json.load(stream)
    return [
        (event.get("args", {}).get("mnemonic", "?"), event["name"], event["dur"] / 1e6)
        for event in trace["traceEvents"]
        if event.get("cat") == "action processing" and event.get("ph") == "X"
    ]


def print_table(title: str, header: tuple[str, ...], rows: list[tuple[object, ...]]) -> None:
    print(f"\n{title}\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|")
    for row in rows:
        print("| " + " | ".join(f"{c:.1f}" if isinstance(c, float) else str(c) for c in row) + " |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", type=Path, help="default: the output base's last command")
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("patterns", nargs="*", default=DEFAULT_PATTERNS)
    args = parser.parse_args()
    profile = args.profile or Path(bazel_output("info", "output_base").strip()) / (
        "command.profile.gz"
    )
    actions = executed_actions(profile)
    owners = source_owners(args.patterns)
    per_target: dict[str, list[float]] = collections.defaultdict(list)
    per_mnemonic: dict[str, list[float]] = collections.defaultdict(list)
    for mnemonic, description, seconds in actions:
        per_mnemonic[mnemonic].append(seconds)
        match = _COMPILE.match(description)
        if match:
            per_target[owners.get(match.group(1), "(outside the patterns)")].append(seconds)
    total = sum(seconds for _, _, seconds in actions)
    print(f"{profile}: {len(actions)} actions, {total:.0f} s of action time")
    print_table(
        "Compile seconds per target",
        ("target", "sources", "seconds", "share", "slowest source s"),
        [
            (target, len(times), sum(times), f"{sum(times) / total:.0%}", max(times))
            for target, times in sorted(per_target.items(), key=lambda item: -sum(item[1]))
        ][: args.top],
    )
    print_table(
        "Slowest actions",
        ("action", "mnemonic", "seconds"),
        [(d, m, s) for m, d, s in sorted(actions, key=lambda a: -a[2])][: args.top],
    )
    print_table(
        "Seconds per mnemonic",
        ("mnemonic", "actions", "seconds"),
        [(m, len(t), sum(t)) for m, t in sorted(per_mnemonic.items(), key=lambda i: -sum(i[1]))],
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
