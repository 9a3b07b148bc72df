"""all_reduce bus bandwidth across message sizes, CPU tensors against CUDA tensors in the
same run: --world processes on loopback, float32, the median of --iterations timed calls
after warm-up ones, bus bandwidth as nccl-tests reports it (bytes * 2(n-1)/n / time). The
CPU tensors always go through gloo (with --backend nccl, a gloo group of the same ranks).

On the simulated torch_cuda with gloo, CUDA tensors go through torch_cuda's host staging
(torch_core/csrc/distributed/host_staging_backend.h), so the ratio is the staging's cost;
with --backend nccl, through the simulated communicator (NCCL's calls on the simulated
streams, gloo's loopback underneath). With --backend nccl on a machine with --world GPUs
the CUDA column is NCCL's.

Usage: bazel run -c opt //benchmarks/runtime:allreduce_bandwidth [-- --world 2]
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import os
import statistics
import tempfile
import time

try:  # torch_cuda's activation, before torch; absent on stock CUDA torch
    importlib.import_module("torch_cuda")
except ModuleNotFoundError:
    pass
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

SIZES = (4 << 10, 64 << 10, 1 << 20, 16 << 20)  # bytes


def _median_seconds(
    tensor: torch.Tensor, iterations: int, group: dist.ProcessGroup | None = None
) -> float:
    for _ in range(3):
        dist.all_reduce(tensor, group=group)
    times = []
    for _ in range(iterations):
        if tensor.is_cuda:
            torch.cuda.synchronize()
        start = time.perf_counter()
        dist.all_reduce(tensor, group=group)
        if tensor.is_cuda:
            torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _bus_gbps(nbytes: int, seconds: float, world: int) -> float:
    return nbytes * 2 * (world - 1) / world / seconds / 1e9


def _cuda_provider() -> str:
    try:
        return f"torch_cuda's {importlib.import_module('_CUDAC').variant} variant"
    except ModuleNotFoundError:
        return "stock CUDA torch"


def _run(rank: int, args: argparse.Namespace, init_file: str) -> None:
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    dist.init_process_group(
        args.backend,
        init_method=f"file://{init_file}",
        rank=rank,
        world_size=args.world,
        timeout=datetime.timedelta(seconds=120),
    )
    torch.cuda.set_device(rank % torch.cuda.device_count())
    cpu_group = None if args.backend == "gloo" else dist.new_group(backend="gloo")
    rows = []
    for nbytes in SIZES:
        numel = nbytes // 4
        cpu = _median_seconds(torch.ones(numel), args.iterations, cpu_group)
        cuda = _median_seconds(torch.ones(numel, device="cuda"), args.iterations)
        rows.append((nbytes, cpu, cuda))
    if rank == 0:
        print("| size | CPU tensors GB/s | CUDA tensors GB/s | CUDA / CPU time |")
        print("| ---: | ---: | ---: | ---: |")
        for nbytes, cpu, cuda in rows:
            print(
                f"| {nbytes >> 10} KiB | {_bus_gbps(nbytes, cpu, args.world):.3f} "
                f"| {_bus_gbps(nbytes, cuda, args.world):.3f} | {cuda / cpu:.2f}x |"
            )
        print(
            f"\nCUDA tensors through {args.backend}, CPU tensors through gloo; "
            f"{args.world} processes on loopback, float32, median of "
            f"{args.iterations} calls after 3 warm-up calls; torch {torch.__version__}, "
            f"CUDA from {_cuda_provider()}"
        )
    dist.destroy_process_group()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--world", type=int, default=2)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--backend", choices=("gloo", "nccl"), default="gloo")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="allreduce_bandwidth.") as directory:
        mp.spawn(_run, args=(args, os.path.join(directory, "init")), nprocs=args.world)


if __name__ == "__main__":
    main()
