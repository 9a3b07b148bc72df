"""The main job's training step: the GPT-2-shaped decoder of
examples/training/training_models.py (token and position embeddings, layer norm, causal
SDPA, tanh-GELU MLP, tied head, AdamW, a cosine schedule, bf16 autocast with GradScaler)
trained for a few steps on the CPU and on the CUDA key from the same seed, with the losses
side by side and the operator calls that went through the CPU fallback.

Run by demo.py: in its own process on the real variant when there is a GPU, or as a script
with the simulated variant's _CUDAC first on the path when there is none.
"""

from __future__ import annotations

# ruff: noqa: I001  (torch_cuda before torch: activates the backend as an installed .pth would)
import torch_cuda

import training_models

_STEPS = 3
# bf16 autocast: CPU and CUDA autocast cast different operator lists to bf16.
_TOLERANCE = 1e-3


def run() -> int:
    torch_cuda.reset_fallback_counts()
    cpu = training_models.gpt_step("cpu", steps=_STEPS)
    cuda = training_models.gpt_step("cuda", steps=_STEPS)
    fallbacks = torch_cuda.fallback_counts()
    print(f"training step         GPT-2-shaped decoder on the {torch_cuda.build_info().variant}"
          f" variant, {_STEPS} steps")
    print("step  loss (cpu)  loss (cuda)")
    for step, (expected, actual) in enumerate(zip(cpu, cuda, strict=False), start=1):
        print(f"{step:>4}  {expected:10.6f}  {actual:11.6f}")
    print(f"CPU fallback calls    {sum(fallbacks.values())}"
          + (f" ({', '.join(sorted(fallbacks))})" if fallbacks else ""))
    agree = all(abs(a - e) <= _TOLERANCE * (1 + abs(e)) for e, a in zip(cpu, cuda, strict=False))
    if not agree:
        print("the CUDA key's losses differ from the CPU's")
    return 0 if agree else 1


if __name__ == "__main__":
    raise SystemExit(run())
