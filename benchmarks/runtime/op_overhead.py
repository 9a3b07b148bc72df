"""Per-op overhead of the sim device against stock CPU torch, measured in the same run.

For a native op of torch_sim (add) and ops that reach torch_core's CPU fallback (sin, exp),
on small tensors where the per-call cost is the overhead rather than the arithmetic:
  CPU µs        the op on CPU tensors (stock torch)
  sim µs        the op on sim tensors, calls queued back to back and the stream
                synchronised once per batch: the cost a loop of eager ops pays per op
  sim+sync µs   the op followed by torch.sim.synchronize() every call: one round trip
  ratio         sim µs / CPU µs
Each figure is the median over --runs batches (after a warm-up batch) of the batch time
divided by the calls in it (timeit-style; the batch size is picked so a batch takes about
--batch-ms on the CPU side).

Usage: bazel run //benchmarks/runtime:op_overhead [-- --runs 7 --batch-ms 50]
   or: python3 benchmarks/runtime/op_overhead.py (torch and torch_sim importable)
"""

from __future__ import annotations

import argparse
import functools
import statistics
import time
from collections.abc import Callable

import torch

import torch_sim  # noqa: F401  (installs torch.sim)

DEVICE = "sim"
OPS: list[tuple[str, str, Callable[[torch.Tensor, torch.Tensor], torch.Tensor]]] = [
    ("add", "native", lambda a, b: torch.add(a, b)),
    ("sin", "fallback", lambda a, b: torch.sin(a)),
    ("exp", "fallback", lambda a, b: torch.exp(a)),
]
SHAPES = [(1, 1), (64, 64)]


def per_call_us(fn: Callable[[], object], sync: Callable[[], None], calls: int, runs: int) -> float:
    """Median over `runs` batches of (time of `calls` calls + one sync) / calls, in µs."""
    for _ in range(calls):  # warm-up batch
        fn()
    sync()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        sync()
        times.append((time.perf_counter() - start) / calls)
    return statistics.median(times) * 1e6


def calls_for(fn: Callable[[], object], batch_ms: float) -> int:
    """About as many calls as take `batch_ms`, at least 10."""
    start = time.perf_counter()
    n = 0
    while time.perf_counter() - start < 0.01:
        fn()
        n += 1
    per_call = (time.perf_counter() - start) / n
    return max(10, int(batch_ms / 1000 / per_call))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="timed batches per figure")
    parser.add_argument("--batch-ms", type=float, default=50.0, help="CPU time per batch")
    # One intra-op thread by default: the sim's stream worker is a thread too, and on a
    # small machine torch's pool competing with it makes the figures swing wildly.
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    sim = getattr(torch, DEVICE)
    sim.set_fallback_policy("allow")
    no_sync = lambda: None  # noqa: E731

    def sync_each(f: Callable[[], object]) -> Callable[[], None]:
        def call() -> None:
            f()
            sim.synchronize()

        return call

    rows = []
    for name, path, op in OPS:
        for shape in SHAPES:
            a, b = torch.randn(shape), torch.randn(shape)
            da, db = a.to(DEVICE), b.to(DEVICE)
            cpu_fn = functools.partial(op, a, b)
            sim_fn = functools.partial(op, da, db)
            calls = calls_for(cpu_fn, args.batch_ms)
            # The sim figures use fewer calls when the op is much slower there, so a batch
            # stays short; the per-call median is comparable all the same.
            sim_calls = max(10, min(calls, calls_for(sim_fn, args.batch_ms)))
            cpu = per_call_us(cpu_fn, no_sync, calls, args.runs)
            on_sim = per_call_us(sim_fn, sim.synchronize, sim_calls, args.runs)
            synced = per_call_us(sync_each(sim_fn), no_sync, sim_calls, args.runs)
            torch.testing.assert_close(sim_fn().cpu(), cpu_fn())
            rows.append((name, path, "x".join(map(str, shape)), cpu, on_sim, synced))

    print("| op | path on sim | shape | CPU µs | sim µs | sim+sync µs | ratio (sim/CPU) |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: |")
    for name, path, shape, cpu, on_sim, synced in rows:
        print(f"| {name} | {path} | {shape} | {cpu:.2f} | {on_sim:.2f} | {synced:.2f} "
              f"| {on_sim / cpu:.1f}x |")
    print(f"\nmedian of {args.runs} batches per figure after a warm-up batch; float32; "
          f"torch {torch.__version__}, {torch.get_num_threads()} intra-op threads; "
          "sim = torch_sim's simulated device (host memory, a worker thread per stream)")


if __name__ == "__main__":
    main()
