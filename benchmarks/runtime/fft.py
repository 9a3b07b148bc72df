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

from collections.abc import Callable

import timing  # first: it imports torch_cuda before torch
import torch

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


def case(transform: Transform, shape: tuple[int, ...], dtype: torch.dtype) -> timing.Case:
    def on(device: str) -> Callable[[], object]:
        torch.manual_seed(0)
        x = torch.randn(shape, dtype=dtype, device=device)
        return lambda: transform(x)

    return on


def main() -> None:
    args = timing.parser_with_runs(__doc__).parse_args()
    torch.set_num_threads(args.threads)
    cases = {name: case(*spec) for name, spec in TRANSFORMS.items()}
    timing.compare_with_cpu("transform", cases, args.runs)


if __name__ == "__main__":
    main()
