"""What the runtime benchmarks share: the median time of a call (on a device, waiting for
its work), the CPU-fallback calls per call, and their common options."""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from types import ModuleType

import torch


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


def device_ms(call: Callable[[], object], device: str, runs: int) -> float:
    """median_ms of `call` on `device`, waiting for a CUDA device's work after each call."""

    def once() -> None:
        call()
        if device == "cuda":
            torch.cuda.synchronize()

    return median_ms(once, runs)


def fallbacks_per_call(backend: ModuleType, runs: int) -> str:
    """The CPU-fallback calls per call of a median_ms run of `runs` (runs + 1 calls with the
    warm-up) since backend.reset_fallback_counts()."""
    return f"{sum(backend.fallback_counts().values()) / (runs + 1):.0f}"


def parser_with_runs(doc: str, runs: int = 5) -> argparse.ArgumentParser:
    """A parser described by the first paragraph of `doc`, with --runs and --threads."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=runs)
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads")
    return parser
