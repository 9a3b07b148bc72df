"""F.scaled_dot_product_attention, forward + backward, on the CPU and on the CUDA key, in the
same run: the median over --runs calls per case (causal, causal with dropout, bfloat16 with
an additive mask, grouped-query), after a warm-up call (which also builds the cuDNN graphs),
the ratio, and the CPU-fallback calls per call on the CUDA key.

The CUDA key chooses its kernel as stock's does (cuDNN's attention on compute capability 9.0
and 10.x, torch's math attention elsewhere). It is torch_cuda's, simulated or real,
whichever _CUDAC is importable; where torch_cuda is not (stock CUDA torch on a GPU
machine), stock's own against the CPU, so the two runs on one machine compare torch_cuda's
cuDNN attention with stock's. GPT-2-sized shapes on a GPU (batch 8, 12 heads of 64, 1024
tokens); on the simulated variant, whose executor loops on the host, 2 x 4 heads x 128.

Usage: bazel run -c opt //benchmarks/runtime:attention [-- --runs 5]
"""

from __future__ import annotations

from collections.abc import Callable

import timing  # first: it imports torch_cuda before torch
import torch
import torch.nn.functional as F

SIMULATED = timing.torch_cuda is not None and timing.torch_cuda.build_info().variant == "simulated"
BATCH, HEADS, TOKENS, HEAD_DIM = (2, 4, 128, 64) if SIMULATED else (8, 12, 1024, 64)


def case(
    dtype: torch.dtype,
    kv_heads: int = HEADS,
    mask: bool = False,
    **kwargs: object,
) -> timing.Case:
    def on(device: str) -> Callable[[], object]:
        torch.manual_seed(0)
        shapes = [(BATCH, HEADS, TOKENS, HEAD_DIM)] + [(BATCH, kv_heads, TOKENS, HEAD_DIM)] * 2
        q, k, v = (torch.randn(s, dtype=dtype, device=device, requires_grad=True) for s in shapes)
        attn_mask = torch.randn(TOKENS, TOKENS, dtype=dtype, device=device) if mask else None
        grad = torch.randn(BATCH, HEADS, TOKENS, HEAD_DIM, dtype=dtype, device=device)

        def once() -> None:
            out = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask, **kwargs)
            out.backward(grad)

        return once

    return on


def main() -> None:
    args = timing.parser_with_runs(__doc__).parse_args()
    torch.set_num_threads(args.threads)
    shape = f"B{BATCH} H{HEADS} L{TOKENS} D{HEAD_DIM}"
    cases = {
        f"causal, half, {shape}": case(torch.float16, is_causal=True),
        f"causal, dropout 0.1, half, {shape}": case(torch.float16, is_causal=True, dropout_p=0.1),
        f"additive mask, bfloat16, {shape}": case(torch.bfloat16, mask=True),
        f"grouped-query, {HEADS // 4} key heads, half, {shape}": case(
            torch.float16, kv_heads=HEADS // 4, enable_gqa=True
        ),
    }
    timing.compare_with_cpu("attention, forward + backward", cases, args.runs)


if __name__ == "__main__":
    main()
