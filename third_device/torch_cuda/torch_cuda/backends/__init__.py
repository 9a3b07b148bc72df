"""torch.backends.cuda-style switches of torch_cuda (grows with the kernels)."""

import _CUDAC


def is_built() -> bool:
    """As torch.backends.cuda.is_built(): this package carries CUDA kernels."""
    return bool(_CUDAC.built_archs)


__all__ = ["is_built"]
