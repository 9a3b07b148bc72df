"""torch.linalg on the CPU and on the CUDA key, in the same run: the median over --runs calls
per operation, after a warm-up call, the ratio, and the CPU-fallback calls per call on the
CUDA key (0: the operation ran as cuSOLVER and cuBLAS plans). The batched small matrices
show what looping over a batch one matrix a call costs, where stock batches them.

The CUDA key is torch_cuda's, simulated or real, whichever _CUDAC is importable; where
torch_cuda is not (stock CUDA torch on a GPU machine), stock's own against the CPU, so the
two runs on one machine compare torch_cuda's cuSOLVER calls with stock's.

Usage: bazel run -c opt //benchmarks/runtime:linalg [-- --runs 5]
"""

from __future__ import annotations

from collections.abc import Callable

import timing  # first: it imports torch_cuda before torch
import torch

Operation = Callable[..., object]


def positive_definite(*shape: int) -> torch.Tensor:
    a = torch.randn(*shape)
    return a @ a.mT + shape[-1] * torch.eye(shape[-1])


# name -> (operation, inputs made on the CPU from a fixed seed)
OPERATIONS: dict[str, tuple[Operation, Callable[[], tuple[torch.Tensor, ...]]]] = {
    "cholesky, 16 x 256 x 256": (torch.linalg.cholesky, lambda: (positive_definite(16, 256, 256),)),
    "solve, 512 x 512, 16 right-hand sides": (
        torch.linalg.solve,
        lambda: (torch.randn(512, 512), torch.randn(512, 16)),
    ),
    "inv, 512 x 512": (torch.linalg.inv, lambda: (torch.randn(512, 512),)),
    "det, 256 x 16 x 16 (batched small)": (torch.linalg.det, lambda: (torch.randn(256, 16, 16),)),
    "qr, 1024 x 256": (torch.linalg.qr, lambda: (torch.randn(1024, 256),)),
    "eigh, 256 x 256": (torch.linalg.eigh, lambda: (positive_definite(256, 256),)),
    "eigh, 128 x 16 x 16 (batched small)": (
        torch.linalg.eigh,
        lambda: (positive_definite(128, 16, 16),),
    ),
    "svd, 512 x 256": (torch.linalg.svd, lambda: (torch.randn(512, 256),)),
    "lstsq, 1024 x 256, 8 right-hand sides": (
        lambda a, b: torch.linalg.lstsq(a, b),
        lambda: (torch.randn(1024, 256), torch.randn(1024, 8)),
    ),
}


def case(operation: Operation, inputs: Callable[[], tuple[torch.Tensor, ...]]) -> timing.Case:
    def on(device: str) -> Callable[[], object]:
        torch.manual_seed(0)
        args = tuple(t.to(device) for t in inputs())
        return lambda: operation(*args)

    return on


def main() -> None:
    args = timing.parser_with_runs(__doc__).parse_args()
    torch.set_num_threads(args.threads)
    cases = {name: case(*spec) for name, spec in OPERATIONS.items()}
    timing.compare_with_cpu("operation, float32", cases, args.runs)


if __name__ == "__main__":
    main()
