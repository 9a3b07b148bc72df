"""Stock ATen's operators on the backend's kernel engine: the device-generic operators of
torch_core's stub_operators.txt run natively (no CPU fallback, even under policy 'error'),
agree with the CPU across dtypes, layouts and broadcasting, and keep stock's checks and
error messages (devices, overlap, out= dtypes), because the checks are stock's code."""

from __future__ import annotations

import torch
from backend import DEVICE, main, mod
from op_layer_case import FLOATING, INTEGRAL, OpLayerCase, sample, tolerance

UNARY_FLOAT = [
    torch.sin, torch.cos, torch.tan, torch.atan, torch.sinh, torch.cosh, torch.tanh,
    torch.asinh, torch.exp, torch.exp2, torch.expm1, torch.sigmoid, torch.erf, torch.erfc,
    torch.ceil, torch.floor, torch.round, torch.trunc, torch.frac, torch.nn.functional.silu,
]
UNARY_POSITIVE = [torch.log, torch.log10, torch.log1p, torch.log2, torch.sqrt, torch.rsqrt,
                  torch.reciprocal, torch.lgamma, torch.acosh]
UNARY_ALL = [torch.abs, torch.neg, torch.sign, torch.logical_not, torch.relu]
BINARY_ALL = [torch.add, torch.sub, torch.mul, torch.maximum, torch.minimum, torch.eq, torch.ne,
              torch.lt, torch.le, torch.gt, torch.ge, torch.logical_and, torch.logical_or,
              torch.logical_xor]
BINARY_NONZERO = [torch.div, torch.remainder, torch.fmod,
                  lambda a, b: torch.div(a, b, rounding_mode="floor"),
                  lambda a, b: torch.div(a, b, rounding_mode="trunc")]


class OpLayer(OpLayerCase):
    def test_unary_floating(self) -> None:
        for dtype in FLOATING:
            x = sample((4, 5), dtype)
            p = sample((4, 5), dtype, positive=True) + 1
            for fn in UNARY_FLOAT:
                with self.subTest(fn=fn.__name__, dtype=dtype):
                    self.check(fn, x, **tolerance(dtype))
            for fn in UNARY_POSITIVE:
                with self.subTest(fn=fn.__name__, dtype=dtype):
                    self.check(fn, p, **tolerance(dtype))

    def test_unary_integer_inputs_promote_to_float(self) -> None:
        x = sample((7,), torch.int32, positive=True)
        for fn in (torch.sin, torch.sqrt, torch.exp):
            with self.subTest(fn=fn.__name__):
                self.check(fn, x)

    def test_unary_complex(self) -> None:
        z = sample((6,), torch.complex64)
        for fn in (torch.sin, torch.exp, torch.tanh, torch.sqrt, torch.log, torch.neg,
                   torch.sigmoid):
            with self.subTest(fn=fn.__name__):
                self.check(fn, z)

    def test_unary_all_types(self) -> None:
        for dtype in (*FLOATING, torch.int8, torch.int32, torch.int64, torch.bool):
            x = sample((3, 4), dtype)
            for fn in UNARY_ALL:
                if fn is torch.abs and dtype == torch.bool:
                    continue  # stock's CUDA kernel has bool, its CPU kernel raises
                with self.subTest(fn=fn.__name__, dtype=dtype):
                    self.check(fn, x)
        self.check(torch.bitwise_not, sample((5,), torch.int16))
        self.check(torch.bitwise_not, sample((5,), torch.bool))

    def test_binary_dtypes_broadcasting_and_promotion(self) -> None:
        pairs = [(d, d) for d in FLOATING + INTEGRAL] + [
            (torch.int32, torch.float32), (torch.float16, torch.float64), (torch.uint8, torch.int8),
            (torch.bool, torch.int64), (torch.bfloat16, torch.float16),
        ]
        for da, db in pairs:
            a, b = sample((3, 1, 4), da), sample((5, 1), db)
            nz = sample((5, 1), db, positive=True)
            tol = tolerance(da) or tolerance(db)
            for fn in BINARY_ALL:
                with self.subTest(fn=getattr(fn, "__name__", "fn"), dtypes=(da, db)):
                    self.check(fn, a, b, **tol)
            for fn in BINARY_NONZERO:
                with self.subTest(fn=getattr(fn, "__name__", "div_mode"), dtypes=(da, db)):
                    self.check(fn, a, nz, **tol)

    def test_integer_semantics(self) -> None:
        a = torch.tensor([-7, -1, 0, 5, 127, -128], dtype=torch.int8)
        b = torch.tensor([2, -3, 5, -2, 1, -1], dtype=torch.int8)
        for fn in (*BINARY_NONZERO[1:], torch.add, torch.mul, torch.sub, torch.bitwise_and,
                   torch.bitwise_or, torch.bitwise_xor, torch.pow):
            with self.subTest(fn=getattr(fn, "__name__", "div_mode")):
                self.check(fn, a, b.abs())
        self.check(lambda x: x.pow(3), torch.arange(-5, 6))

    def test_nan_propagation(self) -> None:
        a = torch.tensor([1.0, float("nan"), 3.0, float("nan")])
        b = torch.tensor([float("nan"), 2.0, 1.0, float("nan")])
        for fn in (torch.maximum, torch.minimum):
            self.check(fn, a, b)
        self.check(lambda x: x.clamp(0.0, 2.0), a)
        self.check(lambda x, lo: x.clamp(min=lo), a, b)

    def test_complex_binary(self) -> None:
        a, b = sample((4,), torch.complex128), sample((4,), torch.complex128)
        for fn in (torch.add, torch.mul, torch.div, torch.eq, lambda x, y: x - 2 * y):
            self.check(fn, a, b)

    def test_host_scalars_and_zero_dim_cpu_tensors(self) -> None:
        x = sample((3, 3), torch.float32)
        self.check(lambda t: t + 2.5, x)
        self.check(lambda t: 1 - t, x)
        self.check(lambda t: t * torch.tensor(3.0), x)
        self.check(lambda t: torch.where(t > 0, t, torch.tensor(0.0)), x)
        self.check(lambda t: t.pow(2), x)
        self.check(lambda t: torch.pow(2, t), x)

    def test_pointwise_family(self) -> None:
        a, b, c = (sample((4, 3), torch.float32) for _ in range(3))
        w = torch.rand(4, 3)
        self.check(lambda x, y, z: torch.addcmul(x, y, z, value=0.5), a, b, c)
        self.check(lambda x, y, z: torch.addcdiv(x, y, z.abs() + 1, value=2), a, b, c)
        self.check(lambda x, y: torch.lerp(x, y, 0.3), a, b)
        self.check(lambda x, y, z: torch.lerp(x, y, z), a, b, w)
        self.check(lambda x, lo, hi: torch.clamp(x, lo, hi.abs()), a, -b.abs(), c)
        self.check(lambda x: torch.clamp(x, max=0.1), a)
        self.check(lambda cond, x, y: torch.where(cond, x, y), a > 0, b, c)
        self.check(lambda x, y: torch.where(x > 0, x, y.double()), a, b)

    def test_activations_and_backwards(self) -> None:
        x = sample((5, 4), torch.float32).requires_grad_()
        for fn in (torch.nn.functional.silu, torch.sigmoid, torch.tanh, torch.relu,
                   lambda t: torch.nn.functional.leaky_relu(t, 0.1),
                   lambda t: torch.nn.functional.threshold(t, 0.2, -1.0)):
            with self.subTest(fn=getattr(fn, "__name__", "fn")):
                (expected,) = torch.autograd.grad(fn(x).sum(), x)
                xd = x.detach().to(DEVICE).requires_grad_()
                (actual,) = torch.autograd.grad(fn(xd).sum(), xd)
                torch.testing.assert_close(actual.cpu(), expected)

    def test_in_place_out_and_non_contiguous(self) -> None:
        base = sample((6, 8), torch.float32)
        on_device = base.to(DEVICE)
        on_device[:, ::2].mul_(2).add_(1)
        expected = base.clone()
        expected[:, ::2].mul_(2).add_(1)
        torch.testing.assert_close(on_device.cpu(), expected)
        out = torch.empty(0, device=DEVICE)
        torch.sin(on_device.t(), out=out)  # out= is resized, as stock does
        torch.testing.assert_close(out.cpu(), torch.sin(expected.t()))
        self.check(lambda t: t[::2, 1::2] * t[1::2, ::2].t().t(), base)
        self.check(lambda t: t.expand(3, 6, 8).exp(), base)

    def test_stock_errors(self) -> None:
        x = torch.ones(3, device=DEVICE)
        # Same-device check of TensorIterator.
        with self.assertRaisesRegex(RuntimeError, "Expected all tensors to be on the same device"):
            x + torch.ones(3)
        with self.assertRaisesRegex(RuntimeError, "Expected all tensors to be on the same device"):
            torch.sin(x, out=torch.empty(3))
        # Partial overlap of input and output (stock raises; a loop would give a running sum).
        y = torch.arange(6.0).to(DEVICE)
        with self.assertRaisesRegex(RuntimeError, "unsupported operation"):
            y[1:].add_(y[:-1])
        # Output dtype the result cannot be cast to.
        with self.assertRaisesRegex(RuntimeError, "can't be cast"):
            torch.ones(3, dtype=torch.int64, device=DEVICE).add_(0.5)
        with self.assertRaisesRegex(RuntimeError, "Integers to negative integer powers"):
            torch.pow(torch.arange(3).to(DEVICE), -1)
        # A dtype the kernel does not have: stock AT_DISPATCH's message.
        with self.assertRaisesRegex(NotImplementedError, "not implemented for 'Float'"):
            x.bitwise_and(x)
        # The device is still usable afterwards.
        self.assertEqual((x + x).sum().item(), 6.0)

    def test_runs_in_stream_order(self) -> None:
        # The kernel must see the host-to-device copy queued before it (the op-layer probe
        # returned zeros when a stub kernel ran on the caller's thread).
        for _ in range(20):
            values = torch.randn(1000)
            torch.testing.assert_close(torch.abs(values.to(DEVICE)).cpu(), values.abs())

    def test_nothing_fell_back(self) -> None:
        x = sample((8,), torch.float32)
        self.check(lambda t: torch.sigmoid(t * 2 - 1).clamp(0.1, 0.9) + t.exp(), x)
        self.assertEqual(mod.fallback_counts(), {})


if __name__ == "__main__":
    main()
