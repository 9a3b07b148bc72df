"""The op layer's reductions, sorting, scans and indexing on the backend: stock ATen's
operators on its kernel engine, natively, agreeing with the CPU (see test_op_layer.py)."""

from __future__ import annotations

import torch
from backend import DEVICE, STICKY_DEVICE_ERRORS, main, run_in_child
from op_layer_case import FLOATING, INTEGRAL, OpLayerCase, sample, tolerance


class ReductionsAndIndexing(OpLayerCase):
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
        # An index out of range (negative ones too) fails, at the next synchronisation: on
        # a GPU, as in stock CUDA torch, with a device-side assert that ends the process's use
        # of the device, so there in a child process.
        for bad in (5, -1):
            if STICKY_DEVICE_ERRORS:
                child = run_in_child(f"torch.gather(torch.randn(3, 4, device=DEVICE), 0, "
                                     f"torch.tensor([[{bad}]], device=DEVICE)).cpu()")
                self.assertNotEqual(child.returncode, 0)
                self.assertIn("device-side assert triggered", child.stderr)
                continue
            with self.assertRaisesRegex(RuntimeError, f"index {bad} is out of bounds"):
                torch.gather(x.to(DEVICE), 0, torch.tensor([[bad]], device=DEVICE)).cpu()

    def test_cross(self) -> None:
        for dtype in (torch.float32, torch.float64, torch.complex64, torch.int64):
            a, b = (torch.randn(4, 3, 5) * 5).to(dtype), (torch.randn(1, 3, 5) * 5).to(dtype)
            self.check(lambda x, y: torch.linalg.cross(x, y, dim=1), a, b)  # b broadcasts
            self.check(lambda x, y: torch.cross(x, y, dim=1), a, b.expand_as(a))
            self.check(lambda x, y: torch.linalg.cross(x, y), a.mT, b.mT)
        self.check(lambda x, y: torch.linalg.cross(x, y), torch.randn(4, 2), torch.randn(4, 2))

    def test_bincount_and_histc(self) -> None:
        x = torch.tensor([0, 3, 3, 7, 1, 0, 3])
        for dtype in (torch.uint8, torch.int8, torch.int32, torch.int64):
            self.check(torch.bincount, x.to(dtype))
        # Float weights count in float, other weights in double, none in int64.
        for weights in (torch.randn(7), torch.randn(7, dtype=torch.float64), torch.arange(7)):
            self.check(lambda t, w: torch.bincount(t, w, minlength=10), x, weights)
        self.check(lambda t: torch.bincount(t, minlength=4), torch.tensor([], dtype=torch.int64))
        self.check(torch.bincount, torch.tensor([1, -1]))
        self.check(torch.bincount, torch.tensor([[1, 2]]))
        self.check(lambda t, w: torch.bincount(t, w), x, torch.randn(3))
        values = torch.randn(1000)
        values[::97] = float("nan")
        self.check(lambda t: torch.histc(t, bins=13, min=-1.5, max=2), values)
        self.check(lambda t: torch.histc(t, bins=7), values.nan_to_num().double())
        self.check(lambda t: torch.histc(t, bins=4), torch.full((5,), 2.0))
        self.check(lambda t: torch.histc(t, bins=3), torch.tensor([]))
        # Stock CUDA's messages (the CPU's start with "torch.histc: ").
        for kwargs, message in (
            ({"min": 2, "max": 1}, "max must be larger than min"),
            ({"bins": 0}, "bins must be > 0"),
            ({"min": 0, "max": float("inf")}, r"range of \[0, inf\] is not finite"),
        ):
            with self.assertRaisesRegex(RuntimeError, f"^{message}"):
                torch.histc(values.to(DEVICE), **kwargs)
        out = torch.empty(0, device=DEVICE)
        torch.histc(values.to(DEVICE), bins=6, min=-1, max=1, out=out)
        torch.testing.assert_close(out.cpu(), torch.histc(values, bins=6, min=-1, max=1))
        # Integers, which the CPU's histc refuses: the bins of the same values in double.
        ints = torch.randint(-3, 14, (200,))
        counts = torch.histc(ints.to(DEVICE), bins=5, min=0, max=10).cpu().double()
        torch.testing.assert_close(counts, torch.histc(ints.double(), bins=5, min=0, max=10))
        with self.assertRaisesRegex(RuntimeError, "HalfTensor is not supported"):
            torch.histc(torch.randn(4, dtype=torch.half, device=DEVICE))

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


if __name__ == "__main__":
    main()
