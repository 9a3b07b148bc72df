"""Per-op host overhead of a device against stock CPU torch, in the same run.

For native ops of the op layer (add, sin, sum: stock ATen's operators on torch_core's
kernel engine) and one that still reaches the CPU fallback (igamma), on small tensors
where the per-call cost is the overhead rather than the arithmetic:
  CPU µs        the op on CPU tensors (stock torch)
  dev µs        the op on the device, calls queued back to back and the stream
                synchronised once per batch: the cost a loop of eager ops pays per op
  dev+sync µs   the op followed by a synchronize() every call: one round trip
  ratio         dev µs / CPU µs
Each figure is the median over --runs batches (after a warm-up batch) of the batch time
divided by the calls in it (timeit-style; the batch size is picked so a batch takes about
--batch-ms on the CPU side).

--device sim (torch_sim, PrivateUse1) or cuda (torch_cuda on the CUDA key, its simulated
variant under Bazel, the real one where an installed wheel's _CUDAC is; activated
explicitly: torch_cuda is imported before torch). Where torch_cuda is not importable (stock
CUDA torch on a GPU machine), --device cuda times stock's own CUDA key, the baseline.

Usage: bazel run //benchmarks/runtime:op_overhead -- --device cuda [--runs 7 --batch-ms 50]
"""

from __future__ import annotations

import argparse
import functools
import importlib
import statistics
import time
from collections.abc import Callable

PACKAGES = {"sim": "torch_sim", "cuda": "torch_cuda"}


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
    parser.add_argument("--device", choices=sorted(PACKAGES), default="cuda")
    parser.add_argument("--runs", type=int, default=7, help="timed batches per figure")
    parser.add_argument("--batch-ms", type=float, default=50.0, help="CPU time per batch")
    # One intra-op thread by default: the device's stream worker is a thread too, and on a
    # small machine torch's pool competing with it makes the figures swing wildly.
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads")
    args = parser.parse_args()
    try:
        backend = importlib.import_module(PACKAGES[args.device])  # before torch, for torch_cuda
    except ImportError:
        if args.device != "cuda":
            raise
        backend = None  # stock CUDA torch
    import torch

    torch.set_num_threads(args.threads)
    device = getattr(torch, args.device)
    if backend is not None:
        backend.set_fallback_policy("allow")
    ops: list[tuple[str, Callable[[torch.Tensor, torch.Tensor], torch.Tensor]]] = [
        ("add", lambda a, b: torch.add(a, b)),
        ("sin", lambda a, b: torch.sin(a)),
        ("sum", lambda a, b: a.sum()),
        ("igamma", lambda a, b: torch.igamma(a, a)),
    ]

    def sync_each(f: Callable[[], object]) -> Callable[[], None]:
        def call() -> None:
            f()
            device.synchronize()

        return call

    rows = []
    for name, op in ops:
        for shape in [(1, 1), (64, 64)]:
            a, b = torch.rand(shape) + 0.5, torch.randn(shape)
            da, db = a.to(args.device), b.to(args.device)
            cpu_fn = functools.partial(op, a, b)
            dev_fn = functools.partial(op, da, db)
            if backend is not None:
                backend.reset_fallback_counts()
            torch.testing.assert_close(dev_fn().cpu(), cpu_fn())
            if backend is None:
                path = "stock"
            else:
                path = "fallback" if backend.fallback_counts() else "native"
            calls = calls_for(cpu_fn, args.batch_ms)
            # Fewer calls on the device when the op is much slower there, so a batch stays
            # short; the per-call median is comparable all the same.
            dev_calls = max(10, min(calls, calls_for(dev_fn, args.batch_ms)))
            cpu = per_call_us(cpu_fn, lambda: None, calls, args.runs)
            on_dev = per_call_us(dev_fn, device.synchronize, dev_calls, args.runs)
            synced = per_call_us(sync_each(dev_fn), lambda: None, dev_calls, args.runs)
            rows.append((name, path, "x".join(map(str, shape)), cpu, on_dev, synced))

    print(f"| op | path on {args.device} | shape | CPU µs | dev µs | dev+sync µs "
          "| ratio (dev/CPU) |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: |")
    for name, path, shape, cpu, on_dev, synced in rows:
        print(f"| {name} | {path} | {shape} | {cpu:.2f} | {on_dev:.2f} | {synced:.2f} "
              f"| {on_dev / cpu:.1f}x |")
    print(f"\nmedian of {args.runs} batches per figure after a warm-up batch; float32; "
          f"torch {torch.__version__}, {torch.get_num_threads()} intra-op threads; "
          f"{args.device}: {PACKAGES[args.device] if backend else 'stock'} on "
          f"{device.get_device_name()}")


if __name__ == "__main__":
    main()
