"""Stock ATen's operators on the backend's kernel engine: the device-generic operators of
torch_core's stub_operators.txt run natively (no CPU fallback, even under policy 'error'),
agree with the CPU across dtypes, layouts and broadcasting, and keep stock's checks and
error messages (devices, overlap, out= dtypes), because the checks are stock's code."""

from __future__ import annotations

import unittest
from collections.abc import Callable

import torch
from backend import DEVICE, main, mod

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


class OpLayer(unittest.TestCase):
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

    def check_reductions(self, x: torch.Tensor, kw: dict, whole: bool) -> None:
        """Every reduction of x over kw's dims (whole: any/all over everything)."""
        dtype = x.dtype
        tol = tolerance(dtype) or {"rtol": 1e-4, "atol": 1e-5}
        any_all_kw = {} if whole else kw
        self.check(lambda t: t.sum(**kw), x, **tolerance(dtype))
        self.check(lambda t: t.any(**any_all_kw), x)
        self.check(lambda t: t.all(**any_all_kw), x)
        if dtype != torch.bool:
            self.check(lambda t: t.amax(**kw), x)
            self.check(lambda t: t.amin(**kw, keepdim=True), x)
        if dtype.is_floating_point:
            self.check(lambda t: t.mean(**kw), x, **tolerance(dtype))
            self.check(lambda t: t.var(**kw), x, **tol)
            self.check(lambda t: t.std(**kw, correction=0), x, **tol)
            self.check(lambda t: torch.linalg.vector_norm(t, 3, **kw), x, **tol)

    def test_reductions(self) -> None:
        for dtype in (torch.float32, torch.float64, torch.float16, torch.int32, torch.int64,
                      torch.bool):
            x = sample((4, 5, 6), dtype)
            for dims in (None, 0, 1, (0, 2), -1):
                with self.subTest(dtype=dtype, dims=dims):
                    kw = {} if dims is None else {"dim": dims}
                    self.check_reductions(x, kw, whole=dims == (0, 2))
        x = sample((4, 5, 6), torch.float32)
        self.check(lambda t: t.prod(1), x, rtol=1e-4, atol=1e-5)
        self.check(lambda t: t.sum(dtype=torch.float64), x)
        self.check(lambda t: t.sum(0, dtype=torch.float16), x, atol=2e-2, rtol=2e-2)
        self.check(lambda t: torch.var_mean(t, 1), x, rtol=1e-4, atol=1e-5)
        self.check(lambda t: torch.std_mean(t, (0, 2), keepdim=True), x, rtol=1e-4, atol=1e-5)
        for p in (0, 1, 2, float("inf"), -float("inf"), 0.5):
            with self.subTest(p=p):
                self.check(lambda t, p=p: torch.linalg.vector_norm(t, p), x, rtol=1e-4, atol=1e-5)
                self.check(lambda t, p=p: t.norm(p, dim=1), x, rtol=1e-4, atol=1e-5)
        z = sample((3, 4), torch.complex64)
        self.check(lambda t: t.sum(1), z)
        self.check(lambda t: t.mean(), z)
        self.check(lambda t: torch.linalg.vector_norm(t), z)
        self.check(lambda t: t.abs(), z)
        # int sums accumulate in int64; a non-contiguous input; a transposed one.
        self.check(lambda t: t.sum(), torch.full((1000,), 2**30, dtype=torch.int32))
        self.check(lambda t: t[:, ::2].t().sum(0), x)

    def test_argmax_argmin_ties_and_nan(self) -> None:
        x = torch.tensor([[1.0, 3.0, 3.0, 0.0], [2.0, float("nan"), 5.0, float("nan")],
                          [-1.0, -1.0, -1.0, -1.0]])
        for fn in (torch.argmax, torch.argmin):
            self.check(fn, x)
            self.check(lambda t, f=fn: f(t, dim=1), x)
            self.check(lambda t, f=fn: f(t, dim=0, keepdim=True), x)
        self.check(lambda t: t.argmax(1), sample((5, 7), torch.int16))

    def test_reduction_errors(self) -> None:
        empty = torch.empty(0, 3).to(DEVICE)
        with self.assertRaisesRegex(IndexError, "Expected reduction dim 0 to have non-zero size"):
            empty.amax(0)
        with self.assertRaisesRegex(RuntimeError, "mean\\(\\): could not infer output dtype"):
            torch.ones(3, dtype=torch.int64).to(DEVICE).mean()
        self.check(lambda t: t.sum(0), torch.empty(0, 3))
        self.check(lambda t: t.mean(0), torch.empty(0, 3))

    def test_max_pool2d_forward_indices_and_backward(self) -> None:
        f = torch.nn.functional
        cases = [{"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1},
                 {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True},
                 {"kernel_size": (2, 3), "stride": (1, 2), "dilation": (2, 1)}]
        shapes = (((2, 3, 9, 11), False), ((2, 3, 9, 11), True), ((3, 8, 7), False))
        for shape, channels_last in shapes:
            for kw in cases:
                with self.subTest(shape=shape, channels_last=channels_last, **kw):
                    x = torch.randn(shape)
                    if channels_last:
                        x = x.to(memory_format=torch.channels_last)
                    xc, xd = x.clone().requires_grad_(), x.to(DEVICE).requires_grad_()
                    yc, ic = f.max_pool2d(xc, return_indices=True, **kw)
                    yd, idx = f.max_pool2d(xd, return_indices=True, **kw)
                    grad = torch.randn_like(yc)
                    yc.backward(grad)
                    yd.backward(grad.to(DEVICE))
                    torch.testing.assert_close(yd.detach().cpu(), yc.detach())
                    torch.testing.assert_close(idx.cpu(), ic)
                    torch.testing.assert_close(xd.grad.cpu(), xc.grad)

    def test_max_pool2d_integer_inputs(self) -> None:
        f = torch.nn.functional
        for dtype in (torch.int64, torch.uint8, torch.int16):
            x = sample((2, 3, 7, 6), dtype)
            self.check(lambda t: f.max_pool2d(t, 3, 2, 1, return_indices=True), x)
            self.check(lambda t: f.max_pool2d(t, 2, ceil_mode=True), x)

    def test_max_min_with_indices_and_equal(self) -> None:
        x = torch.tensor([[1.0, 3.0, 3.0, 0.0], [2.0, float("nan"), 5.0, 1.0]])
        for fn in (torch.max, torch.min):
            self.check(fn, x)
            self.check(lambda t, f=fn: f(t, dim=1), x)
            self.check(lambda t, f=fn: f(t, 0, keepdim=True), x)
        self.check(lambda t: torch.tensor(torch.equal(t, t.clone())), x[:, :1])
        self.check(lambda t: torch.tensor(torch.equal(t, t + 1)), x)

    def test_sort_topk_all_dtypes_nan_and_layouts(self) -> None:
        for dtype in (*FLOATING, *INTEGRAL, torch.bool):
            x = sample((4, 9, 5), dtype)
            if dtype.is_floating_point:
                x[0, 1, 2], x[2, 3, 4], x[1, 1, 1] = float("nan"), -float("nan"), float("inf")
            for dim in (0, 1, -1):
                for descending in (False, True):
                    with self.subTest(dtype=dtype, dim=dim, descending=descending):
                        self.check(lambda t, d=dim, desc=descending: tuple(
                            torch.sort(t, dim=d, descending=desc, stable=True)), x)
            if dtype != torch.bool:
                # Values only: which index of a tie topk reports is unspecified.
                self.check(lambda t: torch.topk(t, 3, dim=1).values, x)
                self.check(lambda t: torch.topk(t, 2, dim=0, largest=False).values, x)
        self.check(lambda t: torch.argsort(t.t(), dim=0), sample((6, 3), torch.float32))
        self.check(lambda t: torch.topk(t, 5), torch.randn(3))  # k out of range: stock's error

    def test_cumsum_cumprod_flip_and_fill_with_a_tensor(self) -> None:
        for dtype in (*FLOATING, *INTEGRAL, torch.bool, torch.complex64):
            x = sample((4, 6, 5), dtype)
            tol = tolerance(dtype)
            for dim in (0, 1, -1):
                with self.subTest(dtype=dtype, dim=dim):
                    self.check(lambda t, d=dim: torch.cumsum(t, d), x, **tol)
                    self.check(lambda t, d=dim: torch.cumprod(t, d), x, **tol)
                    self.check(lambda t, d=dim: torch.flip(t, (d,)), x)
        x = torch.randn(5, 3)
        self.check(lambda t: torch.cumsum(t.t(), 0, dtype=torch.float64), x)
        self.check(lambda t: torch.cumsum(t, 0), torch.tensor(3.0))
        self.check(lambda t: torch.flip(t.t(), (0, 1)), x)
        grads = []
        for device in ("cpu", DEVICE):
            leaf = x.clone().to(device).requires_grad_()
            torch.cumsum(leaf, 0).pow(2).sum().backward()  # the backward flips
            grads.append(leaf.grad.cpu())
        torch.testing.assert_close(grads[1], grads[0])
        self.check(lambda t: t.clone().fill_(torch.tensor(2.5)), x)
        filled = torch.zeros(3, device=DEVICE).fill_(torch.tensor(5.0, device=DEVICE))
        self.assertEqual(filled.cpu().tolist(), [5.0] * 3)

    def test_gather_scatter_and_scatter_add(self) -> None:
        for dtype in (torch.float32, torch.float64, torch.float16, torch.int64, torch.int32,
                      torch.uint8, torch.bool):
            x = sample((4, 5, 3), dtype)
            for dim in (0, 1, -1):
                index = torch.randint(0, x.shape[dim], (3, 4, 2))
                with self.subTest(dtype=dtype, dim=dim):
                    self.check(lambda t, i, d=dim: torch.gather(t, d, i), x, index)
                    self.check(lambda t, i, d=dim: t.clone().scatter_(d, i, 2), x, index)
                    if dtype not in (torch.bool, torch.uint8):
                        src = sample((3, 4, 2), dtype)
                        self.check(lambda t, i, s, d=dim: t.clone().scatter_add_(d, i, s), x, index,
                                   src, **tolerance(dtype))
        # scatter with distinct positions (duplicates leave the winner unspecified).
        x = torch.randn(3, 4)
        self.check(lambda t, i: t.scatter(0, i, t[:1] * 10), x, torch.tensor([[0, 1, 2, 0]]))
        self.check(lambda t, i: torch.gather(t, 0, i), torch.tensor(3.0), torch.tensor(0))
        self.check(lambda t, i: torch.gather(t, 0, i), x, torch.tensor([[1]], dtype=torch.int32))
        # An index out of range (negative ones too) fails, at the next synchronisation.
        for bad in (5, -1):
            with self.assertRaisesRegex(RuntimeError, f"index {bad} is out of bounds"):
                torch.gather(x.to(DEVICE), 0, torch.tensor([[bad]], device=DEVICE)).cpu()

    def test_nonzero_masked_select_and_boolean_indexing(self) -> None:
        x = torch.randn(4, 5, 3)
        x[x < 0.3] = 0
        self.check(torch.nonzero, x)
        self.check(lambda t: t[t > 0], x)
        self.check(lambda t: torch.masked_select(t, t > 0.5), x)
        self.check(torch.nonzero, torch.tensor(3.0))
        self.check(torch.nonzero, torch.zeros(3, 0))
        # Stock CUDA's layout: (N, ndim) with strides (1, N).
        self.assertEqual(torch.nonzero(x.to(DEVICE)).stride(), torch.nonzero(x).stride())
        self.check(lambda t: torch.masked_select(t, (t > 0).int()), x)

    def test_random_ops_draw_from_the_device_generator(self) -> None:
        draws = {
            "uniform_": lambda t: t.uniform_(2, 3), "normal_": lambda t: t.normal_(1, 2),
            "bernoulli_": lambda t: t.bernoulli_(0.3), "exponential_": lambda t: t.exponential_(2),
            "geometric_": lambda t: t.geometric_(0.25),
            "log_normal_": lambda t: t.log_normal_(0, 0.5),
            "cauchy_": lambda t: t.cauchy_(), "random_": lambda t: t.random_(3, 10),
        }
        for name, draw in draws.items():
            with self.subTest(op=name):
                torch.manual_seed(7)
                first = draw(torch.empty(20000, device=DEVICE)).cpu()
                torch.manual_seed(7)
                again = draw(torch.empty(20000, device=DEVICE)).cpu()
                self.assertTrue(torch.equal(first, again))  # seeded: replayed
                self.assertFalse(torch.equal(first, draw(torch.empty(20000, device=DEVICE)).cpu()))
        torch.manual_seed(0)
        x = torch.empty(100000, device=DEVICE)
        self.assertAlmostEqual(x.uniform_(2, 3).mean().item(), 2.5, delta=0.01)
        self.assertGreaterEqual(x.amin().item(), 2.0)
        self.assertAlmostEqual(x.normal_(1, 2).std().item(), 2.0, delta=0.03)
        self.assertAlmostEqual(x.exponential_(2).mean().item(), 0.5, delta=0.01)
        self.assertAlmostEqual(x.bernoulli_(0.3).mean().item(), 0.3, delta=0.01)
        ints = torch.randint(3, 10, (10000,), device=DEVICE).cpu()
        self.assertEqual(sorted(ints.unique().tolist()), list(range(3, 10)))
        p = torch.tensor([0.0, 1.0, 0.0])  # a CPU p, expanded to self's shape
        drawn = torch.empty(4, 3, device=DEVICE).bernoulli_(p).cpu()
        self.assertEqual(drawn.tolist(), [[0.0, 1.0, 0.0]] * 4)
        with self.assertRaisesRegex(RuntimeError, "uniform_ expects to return a \\[from, to\\)"):
            torch.empty(3, device=DEVICE).uniform_(3, 2)
        with self.assertRaisesRegex(RuntimeError, "bernoulli_ expects p to be in \\[0, 1\\]"):
            torch.empty(3, device=DEVICE).bernoulli_(1.5)

    def test_multinomial_aminmax_and_assert_async(self) -> None:
        probs = torch.tensor([[0.1, 0.0, 0.6, 0.3], [0.0, 0.0, 1.0, 0.0]], device=DEVICE)
        drawn = torch.multinomial(probs, 20000, replacement=True).cpu()
        for category, p in enumerate([0.1, 0.0, 0.6, 0.3]):
            self.assertAlmostEqual((drawn[0] == category).float().mean().item(), p, delta=0.02)
        self.assertEqual(drawn[1].unique().tolist(), [2])  # zero-probability never drawn
        without = torch.multinomial(probs[:1], 3).cpu()[0].tolist()
        self.assertEqual(len(set(without)), 3)
        self.assertNotIn(1, without)
        torch.manual_seed(3)
        first = torch.multinomial(probs, 5, True).cpu()
        torch.manual_seed(3)
        self.assertTrue(torch.equal(first, torch.multinomial(probs, 5, True).cpu()))
        with self.assertRaisesRegex(RuntimeError, "invalid multinomial distribution"):
            torch.multinomial(torch.zeros(2, device=DEVICE), 1)
        x = torch.randn(3, 4)
        self.check(lambda t: tuple(torch.aminmax(t)), x)
        self.check(lambda t: tuple(torch.aminmax(t, dim=1, keepdim=True)), x)
        self.check(lambda t: tuple(torch.aminmax(t, dim=0)), x)
        torch._assert_async(torch.tensor(1, device=DEVICE))
        with self.assertRaisesRegex(RuntimeError, "the assertion's message"):
            torch._assert_async(torch.tensor(0, device=DEVICE), "the assertion's message")

    def test_dropout_forward_and_backward(self) -> None:
        x = torch.randn(200, 100, device=DEVICE, requires_grad=True)
        out, mask = torch.native_dropout(x, 0.3, True)
        self.assertEqual(mask.dtype, torch.bool)
        self.assertAlmostEqual(1 - mask.float().mean().item(), 0.3, delta=0.02)
        torch.testing.assert_close(out, x * mask / 0.7)
        out.sum().backward()
        torch.testing.assert_close(x.grad, mask / 0.7)
        evaluated, ones = torch.native_dropout(x, 0.3, False)
        self.assertTrue(torch.equal(evaluated, x) and bool(ones.all()))

    def test_fused_optimizers_match_the_cpu(self) -> None:
        cases = [(torch.optim.Adam, {"amsgrad": True}), (torch.optim.AdamW, {"maximize": True}),
                 (torch.optim.SGD, {"momentum": 0.9, "nesterov": True, "weight_decay": 0.01})]
        for cls, options in cases:
            with self.subTest(optimizer=cls.__name__):
                params = [torch.randn(5, 3), torch.randn(7)]
                grads = [[torch.randn_like(p) for p in params] for _ in range(3)]
                results = []
                for device, fused in (("cpu", False), (DEVICE, True)):
                    ps = [p.clone().to(device).requires_grad_() for p in params]
                    opt = cls(ps, lr=0.01, fused=fused, **options)
                    for step in grads:
                        for p, g in zip(ps, step, strict=False):
                            p.grad = g.to(device)
                        opt.step()
                    results.append([p.detach().cpu() for p in ps])
                torch.testing.assert_close(results[1], results[0], rtol=1e-5, atol=1e-6)

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
