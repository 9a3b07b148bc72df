"""Convolution forward + backward on the CPU and on the CUDA key, in the same run: the
median over --runs calls per shape (ResNet's stem, 3x3 and 1x1 layers, a depthwise layer,
a transposed upsampling layer), after a warm-up call; the ratio; and the CPU-fallback
calls per call on the CUDA key (0: the lowering ran on the device).

The CUDA key is torch_cuda's, simulated or real, whichever _CUDAC is importable; where
torch_cuda is not (stock CUDA torch on a GPU machine), stock's own, timed twice: with
cuDNN, and without (torch.backends.cudnn.enabled = False: stock's im2col + gemm kernels,
the algorithm of torch_cuda's lowering).

Usage: bazel run -c opt //benchmarks/runtime:convolution [-- --runs 5]
"""

from __future__ import annotations

from collections.abc import Callable

import timing  # first: it imports torch_cuda before torch
import torch
import torch.nn.functional as F
from timing import device_ms, fallbacks_per_call, parser_with_runs

torch_cuda = timing.torch_cuda  # None under stock CUDA torch

# name -> (input shape, weight shape, keyword arguments, transposed)
SHAPES: dict[str, tuple[tuple[int, ...], tuple[int, ...], dict, bool]] = {
    "stem 7x7/2, 3->64, 112x112": (
        (8, 3, 112, 112), (64, 3, 7, 7), {"stride": 2, "padding": 3}, False),
    "3x3, 64->64, 28x28": ((8, 64, 28, 28), (64, 64, 3, 3), {"padding": 1}, False),
    "1x1, 256->64, 28x28": ((8, 256, 28, 28), (64, 256, 1, 1), {}, False),
    "depthwise 3x3, 128 ch, 28x28": (
        (8, 128, 28, 28), (128, 1, 3, 3), {"padding": 1, "groups": 128}, False),
    "transposed 4x4/2, 64->32, 14x14": (
        (8, 64, 14, 14), (64, 32, 4, 4), {"stride": 2, "padding": 1}, True),
}


def call_ms(device: str, shape: str, runs: int) -> float:
    x_shape, w_shape, kwargs, transposed = SHAPES[shape]
    conv: Callable[..., torch.Tensor] = F.conv_transpose2d if transposed else F.conv2d
    torch.manual_seed(0)
    x = torch.randn(x_shape, device=device, requires_grad=True)
    w = torch.randn(w_shape, device=device, requires_grad=True)

    def once() -> None:
        out = conv(x, w, **kwargs)
        out.backward(torch.ones_like(out))

    return device_ms(once, device, runs)


def main() -> None:
    args = parser_with_runs(__doc__).parse_args()
    torch.set_num_threads(args.threads)
    if torch_cuda is None:
        key = "stock CUDA torch, cuDNN"
        baseline_label = "stock CUDA torch, no cuDNN"
    else:
        torch_cuda.set_fallback_policy("allow")
        key = f"CUDA key ({torch_cuda.build_info().variant})"
        baseline_label = "CPU"
    print(f"| convolution, forward + backward, batch 8 | {baseline_label} ms | {key} ms | ratio "
          "| fallback calls |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for shape in SHAPES:
        if torch_cuda is None:
            with torch.backends.cudnn.flags(enabled=False):
                baseline = call_ms("cuda", shape, args.runs)
            fallbacks = "n/a"
        else:
            baseline = call_ms("cpu", shape, args.runs)
            torch_cuda.reset_fallback_counts()
        cuda = call_ms("cuda", shape, args.runs)
        if torch_cuda is not None:
            fallbacks = fallbacks_per_call(torch_cuda, args.runs)
        ratio = cuda / baseline
        print(f"| {shape} | {baseline:.2f} | {cuda:.2f} | {ratio:.2f}x | {fallbacks} |")
    device = torch.cuda.get_device_name() if torch.cuda.is_available() else "no GPU"
    threads = torch.get_num_threads()
    print(f"\nmedian of {args.runs} calls after a warm-up call; float32; "
          f"torch {torch.__version__}, {threads} intra-op threads; device: {device}")


if __name__ == "__main__":
    main()
