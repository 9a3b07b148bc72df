"""What the runtime benchmarks share: the median time of a call, and their common options."""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable


def median_ms(call: Callable[[], None], runs: int) -> float:
    """The median wall time of `runs` calls of `call`, in milliseconds, after a warm-up call
    (the allocator, lazy initialisation, a library's algorithm choice). `call` synchronises
    the device itself where it uses one."""
    call()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def parser_with_runs(doc: str, runs: int = 5) -> argparse.ArgumentParser:
    """A parser described by the first paragraph of `doc`, with --runs and --threads."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=runs)
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads")
    return parser
