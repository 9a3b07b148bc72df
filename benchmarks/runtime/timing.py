"""What the runtime benchmarks share: the median time of a call (on a device, waiting for
its work), the CPU-fallback calls per call, their common options, and the table of cases
timed on the CPU and on the CUDA key in one run."""

from __future__ import annotations

import argparse
import importlib
import statistics
import time
from collections.abc import Callable
from types import ModuleType

# torch_cuda (simulated or real, whichever _CUDAC is importable) is imported before torch:
# the explicit activation of the CUDA key. None under stock CUDA torch on a GPU machine,
# whose own CUDA the benchmarks then time.
try:
    torch_cuda = importlib.import_module("torch_cuda")
except ImportError:
    torch_cuda = None
import torch

# A case: given a device, the call to time there (its inputs made once, outside the timing).
Case = Callable[[str], Callable[[], object]]


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


def compare_with_cpu(what: str, cases: dict[str, Case], runs: int) -> None:
    """Prints, per case, the median ms on the CPU and on the CUDA key, their ratio and the
    CUDA key's CPU-fallback calls per call ("n/a" under stock CUDA torch)."""
    backend = torch_cuda
    if backend is None:
        key = "stock CUDA torch"
    else:
        backend.set_fallback_policy("allow")
        key = f"CUDA key ({backend.build_info().variant})"
    print(f"| {what} | CPU ms | {key} ms | ratio | fallback calls |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, case in cases.items():
        baseline = device_ms(case("cpu"), "cpu", runs)
        if backend is not None:
            backend.reset_fallback_counts()
        cuda = device_ms(case("cuda"), "cuda", runs)
        fallbacks = "n/a" if backend is None else fallbacks_per_call(backend, runs)
        print(f"| {name} | {baseline:.2f} | {cuda:.3f} | {cuda / baseline:.2f}x | {fallbacks} |")
    device = torch.cuda.get_device_name() if torch.cuda.is_available() else "no GPU"
    print(f"\nmedian of {runs} calls after a warm-up call; torch {torch.__version__}, "
          f"{torch.get_num_threads()} intra-op threads; device: {device}")
