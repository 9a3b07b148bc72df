"""One training step of the GPT-2-shaped decoder (examples/training/training_models.py) on
stock CPU torch and on the CUDA key, in the same run: the median over --runs calls of
gpt_step(steps=1), which builds the model, optimizer, scaler and batch from a fixed seed
and trains one step (the build is a small part of it), after a warm-up call; the ratio;
and the CPU-fallback calls per step on the CUDA key (0 means every operator ran on the
kernel engine).

The CUDA key is torch_cuda's, simulated or real, whichever _CUDAC is importable; where
torch_cuda is not (stock CUDA torch on a GPU machine), stock's own, for the comparison.

Usage: bazel run -c opt //benchmarks/runtime:training_step [-- --runs 5]
"""

from __future__ import annotations

import timing  # first: it imports torch_cuda before torch (the models import torch)
import torch
import training_models
from timing import device_ms, fallbacks_per_call, parser_with_runs

torch_cuda = timing.torch_cuda  # None under stock CUDA torch


def step_ms(device: str, runs: int) -> float:
    return device_ms(lambda: training_models.gpt_step(device, steps=1), device, runs)


def main() -> None:
    args = parser_with_runs(__doc__).parse_args()
    torch.set_num_threads(args.threads)
    if torch_cuda is not None:
        torch_cuda.set_fallback_policy("allow")
    cpu = step_ms("cpu", args.runs)
    if torch_cuda is not None:
        torch_cuda.reset_fallback_counts()
    cuda = step_ms("cuda", args.runs)
    if torch_cuda is None:
        key, fallbacks = "stock CUDA torch", "n/a"
    else:
        key = f"CUDA key ({torch_cuda.build_info().variant})"
        fallbacks = fallbacks_per_call(torch_cuda, args.runs)
    print(f"| model (build + one step) | CPU ms | {key} ms | ratio | fallback calls |")
    print("| --- | ---: | ---: | ---: | ---: |")
    print(f"| GPT-2-shaped decoder, bf16 autocast, AdamW | {cpu:.1f} | {cuda:.1f} "
          f"| {cuda / cpu:.1f}x | {fallbacks} |")
    device = torch.cuda.get_device_name() if torch.cuda.is_available() else "no GPU"
    print(f"\nmedian of {args.runs} steps after a warm-up step; torch {torch.__version__}, "
          f"{torch.get_num_threads()} intra-op threads; device: {device}")


if __name__ == "__main__":
    main()
