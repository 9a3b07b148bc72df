"""The bias_gelu_ext operators (bias_gelu.cu) with their autograd formula.

import torch
import bias_gelu
bias_gelu.load("/path/to/bias_gelu.so")   # a Bazel or setuptools build (README)
y = bias_gelu.bias_gelu(x, bias)           # x, bias on "cuda"; differentiable
"""

from __future__ import annotations

import torch


def bias_gelu(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """gelu(x + bias), bias broadcast over x's last dimension."""
    return torch.ops.bias_gelu_ext.bias_gelu(x, bias)


def _setup_context(
    ctx: object, inputs: tuple[torch.Tensor, torch.Tensor], output: torch.Tensor
) -> None:
    ctx.save_for_backward(*inputs)  # type: ignore[attr-defined]


def _backward(ctx: object, grad: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    x, bias = ctx.saved_tensors  # type: ignore[attr-defined]
    grad_x = torch.ops.bias_gelu_ext.bias_gelu_backward(grad, x, bias)
    grad_bias = grad_x.sum(dim=tuple(range(grad_x.dim() - 1)))
    return grad_x, grad_bias


_autograd_registered = False


def register_autograd() -> None:
    """Registers bias_gelu's backward, once, after its library is loaded."""
    global _autograd_registered
    if not _autograd_registered:
        torch.library.register_autograd(
            "bias_gelu_ext::bias_gelu", _backward, setup_context=_setup_context
        )
        _autograd_registered = True


def load(library: str) -> None:
    """Loads a built library's operators (Bazel's or setuptools' build) with the backward;
    torch_cuda.cpp_extension.load() loads its JIT build itself: call register_autograd()."""
    torch.ops.load_library(library)
    register_autograd()
