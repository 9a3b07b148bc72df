"""torch.fft on the CPU and on the CUDA key, in the same run: the median over --runs calls
per transform, after a warm-up call (which also makes the cuFFT plan: later calls take it
from torch.backends.cuda.cufft_plan_cache), the ratio, and the CPU-fallback calls per call
on the CUDA key (0: the transform ran as a cuFFT plan).

The CUDA key is torch_cuda's, simulated or real, whichever _CUDAC is importable; where
torch_cuda is not (stock CUDA torch on a GPU machine), stock's own against the CPU, so the
two runs on one machine compare torch_cuda's cuFFT calls with stock's.

Usage: bazel run -c opt //benchmarks/runtime:fft [-- --runs 5]
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

try:
    torch_cuda = importlib.import_module("torch_cuda")
except ImportError:  # stock CUDA torch
    torch_cuda = None
import torch
from timing import device_ms, fallbacks_per_call, parser_with_runs

Transform = Callable[[torch.Tensor], torch.Tensor]

# name -> (transform, input shape, input dtype)
TRANSFORMS: dict[str, tuple[Transform, tuple[int, ...], torch.dtype]] = {
    "rfft, 64 x 4096 float": (torch.fft.rfft, (64, 4096), torch.float32),
    "irfft, 64 x 2049 complex": (lambda t: torch.fft.irfft(t, n=4096), (64, 2049), torch.complex64),
    "fft, 256 x 1000 complex": (torch.fft.fft, (256, 1000), torch.complex64),
    "fft2, 16 x 256 x 256 complex": (torch.fft.fft2, (16, 256, 256), torch.complex64),
    "rfftn, 4 x 64 x 64 x 64 float": (
        lambda t: torch.fft.rfftn(t, dim=(1, 2, 3)),
        (4, 64, 64, 64),
        torch.float32,
    ),
    "stft, 8 x 16000, n_fft 512": (
        lambda t: torch.stft(t, 512, hop_length=128, window=torch.hann_window(512, device=t.device),
                             return_complex=True),
        (8, 16000),
        torch.float32,
    ),
}


def call_ms(device: str, name: str, runs: int) -> float:
    transform, shape, dtype = TRANSFORMS[name]
    torch.manual_seed(0)
    x = torch.randn(shape, dtype=dtype, device=device)
    return device_ms(lambda: transform(x), device, runs)


def main() -> None:
    args = parser_with_runs(__doc__).parse_args()
    torch.set_num_threads(args.threads)
    if torch_cuda is None:
        key = "stock CUDA torch"
    else:
        torch_cuda.set_fallback_policy("allow")
        key = f"CUDA key ({torch_cuda.build_info().variant})"
    print(f"| transform | CPU ms | {key} ms | ratio | fallback calls |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name in TRANSFORMS:
        baseline = call_ms("cpu", name, args.runs)
        fallbacks = "n/a"
        if torch_cuda is not None:
            torch_cuda.reset_fallback_counts()
        cuda = call_ms("cuda", name, args.runs)
        if torch_cuda is not None:
            fallbacks = fallbacks_per_call(torch_cuda, args.runs)
        print(f"| {name} | {baseline:.2f} | {cuda:.3f} | {cuda / baseline:.2f}x | {fallbacks} |")
    device = torch.cuda.get_device_name() if torch.cuda.is_available() else "no GPU"
    print(f"\nmedian of {args.runs} calls after a warm-up call; torch {torch.__version__}, "
          f"{torch.get_num_threads()} intra-op threads; device: {device}")


if __name__ == "__main__":
    main()
