"""What the op-layer contract files share: inputs of every dtype, tolerances, and a test
case that runs with the CPU fallback set to raise and compares the device with the CPU."""

from __future__ import annotations

import unittest
from collections.abc import Callable

import torch
from backend import DEVICE, mod

FLOATING = (torch.float32, torch.float64, torch.float16, torch.bfloat16)
INTEGRAL = (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64)
COMPLEX = (torch.complex64, torch.complex128)


def sample(shape: tuple[int, ...], dtype: torch.dtype, positive: bool = False) -> torch.Tensor:
    if dtype == torch.bool:
        return torch.rand(shape) > 0.5
    if dtype.is_floating_point or dtype.is_complex:
        t = torch.randn(shape, dtype=dtype)
        return t.abs() + 0.5 if positive else t
    low = 1 if positive else (0 if dtype == torch.uint8 else -9)
    return torch.randint(low, 10, shape, dtype=dtype)


def tolerance(dtype: torch.dtype) -> dict:
    if dtype in (torch.float16, torch.bfloat16):
        return {"atol": 2e-2, "rtol": 2e-2}
    return {}


class OpLayerCase(unittest.TestCase):
    def setUp(self) -> None:
        torch.manual_seed(0)
        mod.reset_fallback_counts()
        # Every operator here must be native: the fallback would raise.
        mod.set_fallback_policy("error")

    def tearDown(self) -> None:
        mod.set_fallback_policy("allow")

    def check(self, fn: Callable[..., torch.Tensor], *tensors: torch.Tensor, **tol: float) -> None:
        """The device agrees with the CPU: the same values, or the same error."""
        try:
            expected = fn(*tensors)
        except (RuntimeError, TypeError) as cpu_error:
            with self.assertRaises(type(cpu_error)) as raised:
                fn(*(t.to(DEVICE) for t in tensors))
            self.assertEqual(str(raised.exception).replace("cuda", "cpu").replace(DEVICE, "cpu"),
                             str(cpu_error).replace("cuda", "cpu"))
            return
        actual = fn(*(t.to(DEVICE) for t in tensors))
        if isinstance(actual, tuple):
            actual = tuple(a.cpu() for a in actual)
        else:
            actual = actual.cpu()
        torch.testing.assert_close(actual, expected, equal_nan=True, **tol)
