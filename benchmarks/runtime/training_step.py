"""One training step of the GPT-2-shaped decoder (examples/training/training_models.py) on
stock CPU torch and on the CUDA key of the simulated torch_cuda, in the same run: the
median over --runs calls of gpt_step(steps=1), which builds the model, optimizer, scaler
and batch from a fixed seed and trains one step (the build is a small part of it), after a
warm-up call; the ratio; and the CPU-fallback calls per step on the CUDA key (0 means
every operator ran on the kernel engine).

Usage: bazel run -c opt //benchmarks/runtime:training_step [-- --runs 5]
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import time

# torch_cuda is imported before torch (explicit activation of the CUDA key; the models
# import torch).
torch_cuda = importlib.import_module("torch_cuda")
import torch  # noqa: E402
import training_models  # noqa: E402


def step_ms(device: str, runs: int) -> float:
    training_models.gpt_step(device, steps=1)  # warm-up: allocator, lazy init
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        training_models.gpt_step(device, steps=1)
        if device == "cuda":
            torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch_cuda.set_fallback_policy("allow")
    cpu = step_ms("cpu", args.runs)
    torch_cuda.reset_fallback_counts()
    cuda = step_ms("cuda", args.runs)
    fallbacks = sum(torch_cuda.fallback_counts().values()) / (args.runs + 1)
    print("| model (build + one step) | CPU ms | CUDA key (simulated) ms | ratio "
          "| fallback calls |")
    print("| --- | ---: | ---: | ---: | ---: |")
    print(f"| GPT-2-shaped decoder, bf16 autocast, AdamW | {cpu:.1f} | {cuda:.1f} "
          f"| {cuda / cpu:.1f}x | {fallbacks:.0f} |")
    print(f"\nmedian of {args.runs} steps after a warm-up step; torch {torch.__version__}, "
          f"{torch.get_num_threads()} intra-op threads; the simulated device computes on the "
          "host, one worker thread per stream")


if __name__ == "__main__":
    main()
