"""Native operators on the CUDA key (simulated variant): add/sub/mul/div (functional,
in-place, out=), sum and amax are stock ATen's on torch_core's kernel engine; none goes
through the CPU fallback, and all agree with the CPU. An operator without a kernel goes to
the CPU fallback (counted, under TORCH_CUDA_FALLBACK's policy), tested here. (The contract
suite's op_layer file covers the whole operator list on both backends.)
Linear algebra (mm, ...) runs its gemm plan on the simulated variant's host executor."""

from __future__ import annotations

import unittest

import torch

import torch_cuda

# The simulated variant's tests have 2 devices; a GPU machine may have 1.
needs_two_devices = unittest.skipIf(
    torch.cuda.device_count() < 2, f"needs 2 CUDA devices, found {torch.cuda.device_count()}"
)


def fell_back(op: str) -> int:
    counts = torch_cuda.fallback_counts()
    return sum(n for name, n in counts.items() if name == op or name.startswith(op + "."))


NATIVE_DTYPES = (torch.float32, torch.float64, torch.int32, torch.int64)


def sample(
    shape: tuple[int, ...], dtype: torch.dtype, low: int = -9, high: int = 10
) -> torch.Tensor:
    if dtype.is_floating_point:
        return torch.randn(shape, dtype=dtype)
    return torch.randint(low, high, shape, dtype=dtype)


class NativeOps(unittest.TestCase):
    def setUp(self) -> None:
        torch.manual_seed(0)
        torch_cuda.set_fallback_policy("allow")
        torch_cuda.reset_fallback_counts()

    def tearDown(self) -> None:
        torch_cuda.set_fallback_policy("allow")

    def assert_native(self, *ops: str) -> None:
        for op in (*ops, *(op + "_" for op in ops)):
            self.assertEqual(fell_back(op), 0, f"{op} fell back: {torch_cuda.fallback_counts()}")

    def test_binary_matches_cpu_with_broadcasting(self) -> None:
        for dtype in NATIVE_DTYPES:
            a, b = sample((3, 1, 4), dtype), sample((5, 1), dtype)
            ca, cb = a.cuda(), b.cuda()
            with self.subTest(dtype=dtype):
                torch.testing.assert_close((ca + cb).cpu(), a + b)
                torch.testing.assert_close(
                    torch.add(ca, cb, alpha=3).cpu(), torch.add(a, b, alpha=3)
                )
                torch.testing.assert_close(
                    torch.sub(ca, cb, alpha=2).cpu(), torch.sub(a, b, alpha=2)
                )
                torch.testing.assert_close((ca * cb).cpu(), a * b)
                if dtype.is_floating_point:
                    torch.testing.assert_close((ca / cb).cpu(), a / b)
        self.assert_native("aten::add", "aten::sub", "aten::mul", "aten::div")

    def test_strided_inputs(self) -> None:
        a = torch.randn(6, 8)
        b = torch.randn(8, 6)
        ca, cb = a.cuda(), b.cuda()
        # A transpose, a step slice and an expanded (stride 0) operand.
        torch.testing.assert_close((ca.t() * cb).cpu(), a.t() * b)
        torch.testing.assert_close(
            (ca[::2, 1::3] - cb.t()[::2, 1::3]).cpu(), a[::2, 1::3] - b.t()[::2, 1::3]
        )
        row = torch.randn(1, 8)
        torch.testing.assert_close((ca + row.cuda().expand(6, 8)).cpu(), a + row)
        self.assert_native("aten::add", "aten::sub", "aten::mul")

    def test_host_scalars(self) -> None:
        a = torch.randn(4, 3)
        ca = a.cuda()
        torch.testing.assert_close((ca + 2).cpu(), a + 2)
        torch.testing.assert_close((ca * 0.5).cpu(), a * 0.5)
        torch.testing.assert_close((1 - ca).cpu(), 1 - a)
        torch.testing.assert_close((ca / 4).cpu(), a / 4)
        i = torch.arange(6, dtype=torch.int64)
        torch.testing.assert_close((i.cuda() * 3).cpu(), i * 3)
        self.assert_native("aten::add", "aten::sub", "aten::mul", "aten::div")

    def test_in_place(self) -> None:
        a, b = torch.randn(3, 4), torch.randn(4)
        ca = a.cuda()
        ca.add_(b.cuda(), alpha=2).mul_(b.cuda()).sub_(1).div_(b.cuda())
        torch.testing.assert_close(ca.cpu(), a.add(b, alpha=2).mul(b).sub(1).div(b))
        # A strided view updated in place writes through to its base.
        base = torch.zeros(4, 4)
        cbase = base.cuda()
        cbase[:, 1].add_(torch.arange(4.0).cuda())
        base[:, 1].add_(torch.arange(4.0))
        torch.testing.assert_close(cbase.cpu(), base)
        self.assert_native("aten::add", "aten::sub", "aten::mul", "aten::div")

    def test_in_place_broadcast_to_larger_shape_is_an_error(self) -> None:
        x = torch.ones(4, device="cuda")
        with self.assertRaises(RuntimeError):
            x.add_(torch.ones(3, 4, device="cuda"))

    def test_out(self) -> None:
        a, b = torch.randn(2, 3), torch.randn(3)
        out = torch.empty(0, device="cuda")
        torch.add(a.cuda(), b.cuda(), alpha=0.5, out=out)
        torch.testing.assert_close(out.cpu(), torch.add(a, b, alpha=0.5))
        torch.mul(a.cuda(), b.cuda(), out=out)
        torch.testing.assert_close(out.cpu(), a * b)
        torch.div(a.cuda(), b.cuda(), out=out)
        torch.testing.assert_close(out.cpu(), a / b)
        torch.sub(a.cuda(), b.cuda(), out=out)
        torch.testing.assert_close(out.cpu(), a - b)
        self.assertEqual(out.shape, (2, 3))
        self.assert_native("aten::add", "aten::sub", "aten::mul", "aten::div")

    def test_sum(self) -> None:
        for dtype in NATIVE_DTYPES:
            x = sample((3, 4, 5), dtype)
            cx = x.cuda()
            with self.subTest(dtype=dtype):
                total = cx.sum()
                self.assertEqual(total.dtype, x.sum().dtype)  # int32 sums to int64
                torch.testing.assert_close(total.cpu(), x.sum())
                torch.testing.assert_close(cx.sum(1).cpu(), x.sum(1))
                torch.testing.assert_close(
                    cx.sum((0, 2), keepdim=True).cpu(), x.sum((0, 2), keepdim=True)
                )
                torch.testing.assert_close(
                    cx.transpose(0, 2).sum(-1).cpu(), x.transpose(0, 2).sum(-1)
                )
        torch.testing.assert_close(torch.zeros(0, 3).cuda().sum(0).cpu(), torch.zeros(3))
        self.assert_native("aten::sum")

    def test_amax(self) -> None:
        for dtype in NATIVE_DTYPES:
            x = sample((4, 6), dtype)
            cx = x.cuda()
            with self.subTest(dtype=dtype):
                torch.testing.assert_close(cx.amax().cpu(), x.amax())
                torch.testing.assert_close(cx.amax(1).cpu(), x.amax(1))
                torch.testing.assert_close(
                    cx.t().amax(0, keepdim=True).cpu(), x.t().amax(0, keepdim=True)
                )
        y = torch.tensor([[1.0, float("nan")], [float("-inf"), -2.0]])
        torch.testing.assert_close(y.cuda().amax(1).cpu(), y.amax(1), equal_nan=True)
        self.assert_native("aten::amax")

    @needs_two_devices
    def test_on_second_device_and_current_stream(self) -> None:
        a, b = torch.randn(5), torch.randn(5)
        with torch.cuda.device(1):
            s = torch.cuda.Stream()
            with torch.cuda.stream(s):
                c = a.cuda() + b.cuda()
                total = c.sum()
            s.synchronize()
        self.assertEqual(c.device, torch.device("cuda", 1))
        torch.testing.assert_close(c.cpu(), a + b)
        torch.testing.assert_close(total.cpu(), (a + b).sum())
        self.assert_native("aten::add", "aten::sum")

    def test_autograd_through_native_ops(self) -> None:
        x = torch.randn(3, 4, device="cuda", requires_grad=True)
        ((x * x + x) / 2).sum().backward()
        torch.testing.assert_close(x.grad.cpu(), ((2 * x.detach() + 1) / 2).cpu())

    def test_operator_without_kernel_falls_back(self) -> None:
        # igamma's stub has no kernel on the engine yet: it runs on the CPU, counted.
        a = torch.rand(4) + 0.5
        torch.testing.assert_close(torch.igamma(a.cuda(), a.cuda()).cpu(), torch.igamma(a, a))
        self.assertGreaterEqual(fell_back("aten::igamma"), 1)

    def test_half_promotion_and_reductions_are_native(self) -> None:
        # Stock ATen's operators on the kernel engine: half, type promotion (int / int is
        # float; int + float), host scalars and reductions of any dtype need no fallback.
        a = torch.randn(4, dtype=torch.float16)
        i = torch.arange(1, 5)
        torch.testing.assert_close((a.cuda() + a.cuda()).cpu(), a + a)
        torch.testing.assert_close((i.cuda() / i.cuda()).cpu(), i / i)
        torch.testing.assert_close((i.cuda() + 0.5).cpu(), i + 0.5)
        torch.testing.assert_close(a.cuda().sum().cpu(), a.sum(), atol=1e-2, rtol=1e-2)
        torch.testing.assert_close(
            torch.ones(3, dtype=torch.bool).cuda().sum().cpu(), torch.tensor(3)
        )
        self.assert_native("aten::add", "aten::div", "aten::sum")

    def test_error_policy_refuses_only_the_fallback(self) -> None:
        a = torch.rand(4, device="cuda") + 0.5
        f = torch.randn(4, device="cuda")
        torch_cuda.set_fallback_policy("error")
        with self.assertRaisesRegex(NotImplementedError, "aten::igamma"):
            torch.igamma(a, a)
        # The native operators are unaffected by the policy.
        self.assertEqual((f - f).sum().item(), 0.0)

    def test_linear_algebra_runs_the_gemm_plan(self) -> None:
        # mm/addmm/bmm/baddbmm/mv/addmv plan a column-major cuBLAS call; the simulated
        # executor runs that plan with cuBLAS's semantics, so transposes, leading
        # dimensions and batch strides planned wrong would show here.
        torch_cuda.set_fallback_policy("error")
        a, b = torch.randn(5, 7, dtype=torch.float64), torch.randn(7, 3, dtype=torch.float64)
        c = torch.randn(5, 3, dtype=torch.float64)
        ca, cb, cc = a.cuda(), b.cuda(), c.cuda()
        torch.testing.assert_close((ca @ cb).cpu(), a @ b)
        torch.testing.assert_close((ca.t().contiguous().t() @ cb).cpu(), a @ b)  # trans A
        torch.testing.assert_close((cb.t() @ ca.t()).cpu(), b.t() @ a.t())  # both transposed
        torch.testing.assert_close(
            ca[:, 1:6].mm(cb[1:6]).cpu(), a[:, 1:6].mm(b[1:6])  # leading dimension > cols
        )
        torch.testing.assert_close(
            torch.addmm(cc, ca, cb, beta=0.5, alpha=2).cpu(),
            torch.addmm(c, a, b, beta=0.5, alpha=2),
        )
        # beta == 0 does not read self (NaN there does not propagate).
        nan = torch.full((5, 3), float("nan"), dtype=torch.float64)
        torch.testing.assert_close(
            torch.addmm(nan.cuda(), ca, cb, beta=0).cpu(), torch.addmm(nan, a, b, beta=0)
        )
        x, y = torch.randn(4, 3, 5), torch.randn(4, 5, 2)
        torch.testing.assert_close(torch.bmm(x.cuda(), y.cuda()).cpu(), torch.bmm(x, y))
        torch.testing.assert_close(
            torch.bmm(x.cuda().transpose(1, 2).contiguous().transpose(1, 2), y.cuda()).cpu(),
            torch.bmm(x, y),
        )
        z = torch.randn(4, 3, 2)
        torch.testing.assert_close(
            torch.baddbmm(z.cuda(), x.cuda(), y.cuda(), alpha=0.5).cpu(),
            torch.baddbmm(z, x, y, alpha=0.5),
        )
        v = torch.randn(7, dtype=torch.float64)
        torch.testing.assert_close((ca @ v.cuda()).cpu(), a @ v)
        torch.testing.assert_close((ca.t() @ torch.ones(5, dtype=torch.float64).cuda()).cpu(),
                                   a.t() @ torch.ones(5, dtype=torch.float64))
        h = torch.randn(6, 4, dtype=torch.float16)
        torch.testing.assert_close((h.cuda() @ h.cuda().t()).cpu(), h @ h.t(), atol=1e-2, rtol=1e-2)
        torch.testing.assert_close((h.cuda() @ h[0].cuda()).cpu(), h @ h[0], atol=1e-2, rtol=1e-2)
        self.assertEqual(torch_cuda.fallback_counts(), {})

    def test_tf32_setting_reaches_the_plan(self) -> None:
        # allow_tf32 makes the plan ask for TF32 inputs (10 mantissa bits): the simulated
        # executor rounds as the tensor cores would. TF32 is a permission, not an order:
        # cuBLAS uses plain FP32 for tiny products, so the product is big enough for tensor
        # cores. 1 + 2**-12 rounds to 1 in TF32; every partial sum is exact in FP32.
        a = torch.full((64, 256), 1.0 + 2.0**-12)
        b = torch.ones(256, 64)
        try:
            torch.backends.cuda.matmul.allow_tf32 = True
            self.assertEqual((a.cuda() @ b.cuda()).unique().tolist(), [256.0])
        finally:
            torch.backends.cuda.matmul.allow_tf32 = False
        self.assertEqual((a.cuda() @ b.cuda()).unique().tolist(), [256.0 + 2.0**-4])

    def test_complex_products_run_the_gemm_plan(self) -> None:
        # complex64 and complex128 products are complex gemms (complex alpha and beta);
        # conjugate views are materialised first, so a.mH @ b agrees with the CPU.
        torch_cuda.set_fallback_policy("error")
        for dtype, tolerance in ((torch.complex64, {"rtol": 1e-4, "atol": 1e-4}),
                                 (torch.complex128, {})):
            a, b = torch.randn(4, 3, dtype=dtype), torch.randn(4, 5, dtype=dtype)
            c = torch.randn(3, 5, dtype=dtype)
            views = {"plain": lambda t: t, "conj": lambda t: t.conj(),
                     "stored transposed": lambda t: t.mT.contiguous().mT}
            for name, view in views.items():
                torch.testing.assert_close((view(a.cuda()).mH @ b.cuda()).cpu(), view(a).mH @ b,
                                           msg=lambda m, n=name, d=dtype: f"{d} {n}: {m}",
                                           **tolerance)
            for alpha, beta in ((1, 0), (2 - 1j, 0.5 + 2j), (1j, 1)):
                torch.testing.assert_close(
                    torch.addmm(c.cuda(), a.cuda().mT, b.cuda(), beta=beta, alpha=alpha).cpu(),
                    torch.addmm(c, a.mT, b, beta=beta, alpha=alpha), **tolerance)
                x, y, z = (torch.randn(2, *s, dtype=dtype) for s in ((3, 4), (4, 5), (3, 5)))
                torch.testing.assert_close(
                    torch.baddbmm(z.cuda(), x.cuda(), y.cuda(), beta=beta, alpha=alpha).cpu(),
                    torch.baddbmm(z, x, y, beta=beta, alpha=alpha), **tolerance)
                v, w = torch.randn(4, dtype=dtype), torch.randn(3, dtype=dtype)
                scale = {"beta": beta, "alpha": alpha}
                on_device = torch.addmv(w.cuda(), a.cuda().mT, v.cuda().conj(), **scale)
                expected = torch.addmv(w, a.mT, v.conj(), **scale)
                torch.testing.assert_close(on_device.cpu(), expected, **tolerance)
        self.assertEqual(torch_cuda.fallback_counts(), {})


if __name__ == "__main__":
    unittest.main()
