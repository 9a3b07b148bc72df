"""Build-time figures for //third_device/torch_cuda:all (medians of several runs).

Each run works in a private copy of the checkout with its own output base and its own
empty disk cache, so the figures do not depend on (and do not disturb) the developer's
caches; the repository cache (downloaded wheels) is shared, as on any machine that has
built once. Scenarios, in order within a run:

  cold          fresh output base, empty disk cache, no remote cache
  no-op         the same build again, right after the cold build
  no-op again   and once more: the server settling
  no-op settled the fifth no-op in a row: a server warmed up to no-op builds (Java's JIT
                compiles the file checks only after they have run a few times), as in a
                developer's edit-build loop
  touch .cu     one of the CUDA engine's kernel sources edited
  touch .cpp    one torch_core source edited (when torch_cuda's graph has one)
  touch header  torch_core's runtime interface header edited (what includes it recompiles)
  warm disk     `bazel clean`, then a build served from the disk cache of the cold build
  remote        fresh output base and disk cache, served from the remote cache
                (only when `tools/remote_cache status` says the local server runs),
                which is filled, between the cold build and the next, with every
                entry of the cold build's disk cache;
                the actions it did not take from the cache are listed after the table,
                and where its time went (the profile's phases, the slowest repository
                fetches)

Usage: python3 benchmarks/build/build_bench.py [--runs N]
"""

from __future__ import annotations

import argparse
import gzip
import http.client
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

REPO = Path(__file__).resolve().parents[2]
TARGET = "//third_device/torch_cuda:all"
TOUCHED_CU = "third_device/torch_cuda/torch_cuda/csrc/aten/engine/elementwise_binary.cu"
TOUCHED_HEADER = "torch_core/csrc/runtime/device_runtime.h"
# "INFO: 55 processes: 3 remote cache hit, 34 internal, 18 linux-sandbox."
_PROCESSES = re.compile(r"INFO: \d+ process(?:es)?: (.*)\.")


@dataclass
class BuildResult:
    seconds: float
    process_counts: dict[str, int]

    def cache_hit_rate(self) -> float | None:
        """Share of non-internal actions served from a cache (disk or remote)."""
        hits = sum(n for kind, n in self.process_counts.items() if "cache hit" in kind)
        executed = sum(n for kind, n in self.process_counts.items() if kind != "internal")
        return hits / executed if executed else None


@dataclass
class Scenario:
    name: str
    results: list[BuildResult] = field(default_factory=list)
    # "mnemonic target" of each action a run executed instead of taking from a cache.
    misses: list[list[str]] = field(default_factory=list)
    # The remote build's profile: its phases and slowest repository fetches.
    profiles: list[list[str]] = field(default_factory=list)


def record(scenario: Scenario, result: BuildResult) -> None:
    """Keeps a result and prints it at once, so that a later failure loses nothing."""
    scenario.results.append(result)
    rate = result.cache_hit_rate()
    hits = f", {rate:.0%} from a cache" if rate is not None else ""
    print(f"build_bench: {scenario.name}: {result.seconds:.1f} s{hits}", flush=True)


def executed_actions(execution_log: Path) -> list[str]:
    """The actions of a build's --execution_log_json_file (concatenated JSON objects) that
    no cache served."""
    text = execution_log.read_text()
    decoder = json.JSONDecoder()
    position, missed = 0, []
    while (position := _skip_space(text, position)) < len(text):
        spawn, position = decoder.raw_decode(text, position)
        if not spawn.get("remoteCacheHit") and "cache hit" not in spawn.get("runner", ""):
            missed.append(f"{spawn.get('mnemonic', '?')} {spawn.get('targetLabel', '?')}")
    return sorted(missed)


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position].isspace():
        position += 1
    return position


class Checkout:
    """A private copy of the working tree with its own output base and disk cache."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.tree = root / "src"
        self.output_base = root / "output_base"
        self.disk_cache = root / "disk_cache"
        files = subprocess.run(
            ["git", "ls-files", "-co", "--exclude-standard", "-z"],
            cwd=REPO, check=True, capture_output=True, text=True,
        ).stdout.split("\0")
        for name in filter(None, files):
            source = REPO / name
            if source.is_file():
                target = self.tree / name
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target)

    def bazel(self, *args: str, extra_startup: tuple[str, ...] = ()) -> str:
        command = [
            str(self.tree / "tools" / "bazel"),
            f"--output_base={self.output_base}",
            *extra_startup,
            *args,
        ]
        result = subprocess.run(command, cwd=self.tree, capture_output=True, text=True)
        if result.returncode != 0:
            sys.stderr.write(result.stderr[-4000:])
            raise SystemExit(f"build_bench: `{' '.join(args)}` failed in {self.tree}")
        return result.stderr

    def build(self, *flags: str) -> BuildResult:
        started = time.monotonic()
        log = self.bazel("build", f"--disk_cache={self.disk_cache}", *flags, TARGET)
        seconds = time.monotonic() - started
        counts: dict[str, int] = {}
        match = _PROCESSES.findall(log)
        if match:
            for part in match[-1].split(", "):
                number, _, kind = part.partition(" ")
                counts[kind] = int(number)
        return BuildResult(seconds, counts)

    def edit(self, path: str, token: str) -> None:
        """Changes the file's content (Bazel keys on digests, not mtimes)."""
        with (self.tree / path).open("a") as handle:
            handle.write(f"\n// build_bench edit {token}\n")

    def source_in_graph(self, pattern: str) -> str | None:
        query = f"filter('{pattern}', kind('source file', deps({TARGET})))"
        for label in self.query(query).split():
            package, _, name = label.lstrip("/").partition(":")
            return f"{package}/{name}"
        return None

    def query(self, expression: str) -> str:
        command = [str(self.tree / "tools" / "bazel"), f"--output_base={self.output_base}",
                   "query", expression, "--output=label"]
        result = subprocess.run(command, cwd=self.tree, capture_output=True, text=True, check=True)
        return result.stdout

    def profile_summary(self, profile: Path) -> list[str]:
        """The phases of a build's --profile, and its slowest repository fetches."""
        command = [str(self.tree / "tools" / "bazel"), f"--output_base={self.output_base}",
                   "analyze-profile", str(profile)]
        result = subprocess.run(command, cwd=self.tree, capture_output=True, text=True)
        phases = [line.strip() for line in result.stdout.splitlines()
                  if re.match(r"\s*(Total .* phase time|Total run time)", line)]
        return phases + slowest_fetches(profile)

    def shutdown(self) -> None:
        subprocess.run(
            [str(self.tree / "tools" / "bazel"), f"--output_base={self.output_base}", "shutdown"],
            cwd=self.tree, capture_output=True, check=False,
        )


def slowest_fetches(profile: Path, count: int = 6) -> list[str]:
    """The repository fetches of a JSON trace profile that took longest."""
    with gzip.open(profile, "rt") as handle:
        events = json.load(handle).get("traceEvents", [])
    fetches = [
        (event["dur"] / 1e6, event.get("name", "?")) for event in events
        if event.get("ph") == "X" and "dur" in event
        and ("repository" in event.get("cat", "").lower()
             or str(event.get("name", "")).startswith("fetching"))
    ]
    fetches.sort(reverse=True)
    return [f"{seconds:6.1f} s  {name}" for seconds, name in fetches[:count]]


def remote_cache_url() -> str:
    """The cache --config=remote-cache uses (tools/bazel's rule)."""
    port = os.environ.get("TORCH_CUDA_REMOTE_CACHE_PORT", "").strip() or "9092"
    return os.environ.get("TORCH_CUDA_REMOTE_CACHE") or f"http://127.0.0.1:{port}"


def fill_remote_cache(disk_cache: Path, url: str) -> tuple[int, int]:
    """PUTs every entry of a disk cache into the HTTP remote cache at `url`; returns the
    entries and bytes sent. Bazel's disk cache holds the HTTP cache's entries (ac/: action
    results, cas/: blobs) under two-letter directories. The remote scenario so finds what
    the cold build produced, while the cold build stays a plain one: uploading while it
    builds (--remote_upload_local_results) made it ~15% slower here."""
    parts = urlsplit(url)
    if parts.scheme != "http" or parts.hostname is None:
        raise SystemExit(f"build_bench: fills an http:// cache only, not {url}")
    connection = http.client.HTTPConnection(parts.hostname, parts.port or 80, timeout=60)
    entries = sent = 0
    try:
        for kind in ("cas", "ac"):  # the blobs before the results that name them
            for entry in sorted((disk_cache / kind).glob("*/*")):
                size = entry.stat().st_size
                with entry.open("rb") as body:
                    connection.request("PUT", f"{parts.path.rstrip('/')}/{kind}/{entry.name}",
                                       body=body, headers={"Content-Length": str(size)})
                    response = connection.getresponse()
                    response.read()
                if response.status not in (200, 201, 204):
                    raise SystemExit(f"build_bench: {url} answered {response.status} to a PUT")
                entries, sent = entries + 1, sent + size
    finally:
        connection.close()
    return entries, sent


def remote_cache_running() -> bool:
    script = REPO / "tools" / "remote_cache"
    if not script.exists():
        return False
    return subprocess.run([str(script), "status"], capture_output=True).returncode == 0


def one_run(index: int, scenarios: dict[str, Scenario], use_remote: bool) -> None:
    with tempfile.TemporaryDirectory(prefix=f"build_bench{index}_") as tmp:
        checkout = Checkout(Path(tmp))
        # The tree the cold build sees, copied now: the remote build must see it too, not
        # the edits below nor the developer's edits while the benchmark runs.
        fresh = Checkout(Path(tmp) / "fresh")
        try:
            remote_off = ("--remote_cache=",)
            record(scenarios["cold"], checkout.build(*remote_off))
            if use_remote:  # for the last scenario, with what the cold build made
                entries, sent = fill_remote_cache(checkout.disk_cache, remote_cache_url())
                print(f"build_bench: remote cache filled: {entries} entries, {sent >> 20} MiB",
                      flush=True)
            record(scenarios["no-op"], checkout.build(*remote_off))
            record(scenarios["no-op again"], checkout.build(*remote_off))
            for _ in range(2):
                checkout.build(*remote_off)
            record(scenarios["no-op settled"], checkout.build(*remote_off))
            checkout.edit(TOUCHED_CU, str(index))
            record(scenarios["touch .cu"], checkout.build(*remote_off))
            core_cpp = checkout.source_in_graph(r"^//torch_core:.*\.cpp$")
            if core_cpp:
                checkout.edit(core_cpp, str(index))
                record(scenarios["touch .cpp"], checkout.build(*remote_off))
            checkout.edit(TOUCHED_HEADER, str(index))
            record(scenarios["touch header"], checkout.build(*remote_off))
            checkout.bazel("clean")
            record(scenarios["warm disk"], checkout.build(*remote_off))
            if use_remote:
                checkout.shutdown()
                shutil.rmtree(checkout.output_base, ignore_errors=True)
                shutil.rmtree(checkout.disk_cache, ignore_errors=True)
                execution_log = Path(tmp) / "remote_execution_log.json"
                profile = Path(tmp) / "remote_profile.json.gz"
                try:
                    remote_flags = ("--config=remote-cache",
                                    f"--execution_log_json_file={execution_log}",
                                    f"--profile={profile}")
                    record(scenarios["remote"], fresh.build(*remote_flags))
                    scenarios["remote"].misses.append(executed_actions(execution_log))
                    scenarios["remote"].profiles.append(fresh.profile_summary(profile))
                finally:
                    fresh.shutdown()
        finally:
            checkout.shutdown()


def table(scenarios: dict[str, Scenario]) -> str:
    cold = statistics.median(r.seconds for r in scenarios["cold"].results)
    lines = [
        "| scenario | median s | min s | max s | vs cold | cache hit rate |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for scenario in scenarios.values():
        if not scenario.results:
            lines.append(f"| {scenario.name} | n/a | | | | |")
            continue
        seconds = [r.seconds for r in scenario.results]
        median = statistics.median(seconds)
        rates = [rate for r in scenario.results if (rate := r.cache_hit_rate()) is not None]
        rate = f"{statistics.median(rates):.0%}" if rates else "-"
        lines.append(
            f"| {scenario.name} | {median:.1f} | {min(seconds):.1f} | {max(seconds):.1f} "
            f"| {median / cold:.2f} | {rate} |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per scenario (default 3)")
    options = parser.parse_args()
    use_remote = remote_cache_running()
    names = ["cold", "no-op", "no-op again", "no-op settled", "touch .cu", "touch .cpp",
             "touch header", "warm disk"]
    if use_remote:
        names.append("remote")
    else:
        print("build_bench: remote cache not running (tools/remote_cache start); skipping 'remote'")
    scenarios = {name: Scenario(name) for name in names}
    for index in range(options.runs):
        print(f"build_bench: run {index + 1}/{options.runs} ...", flush=True)
        one_run(index, scenarios, use_remote)
    print(f"\n{TARGET}, {options.runs} runs, 2-core machine\n")
    print(table(scenarios))
    for index, missed in enumerate(scenarios["remote"].misses if use_remote else []):
        print(f"\nremote, run {index + 1}: {len(missed)} actions not from a cache")
        for action in missed:
            print(f"  {action}")
    for index, summary in enumerate(scenarios["remote"].profiles if use_remote else []):
        print(f"\nremote, run {index + 1}: where the time went (--profile)")
        for line in summary:
            print(f"  {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
