"""Tensors: round trips, native and fallback ops against the CPU, views, copies."""

import unittest

import torch
from backend import DEVICE, device, main, mod, requires_devices


class RoundTrip(unittest.TestCase):
    def setUp(self) -> None:
        torch.manual_seed(0)

    def test_round_trip_is_exact(self) -> None:
        for dtype in (
            torch.float32,
            torch.float64,
            torch.int64,
            torch.int32,
            torch.bool,
            torch.float16,
        ):
            x = (torch.randn(7, 5) * 10).to(dtype)
            y = x.to(DEVICE)
            self.assertEqual(y.device.type, DEVICE)
            self.assertEqual(y.dtype, dtype)
            self.assertTrue(torch.equal(y.cpu(), x), dtype)

    def test_ops_match_cpu(self) -> None:
        a, b = torch.randn(4, 6), torch.randn(4, 6)
        da, db = a.to(DEVICE), b.to(DEVICE)
        cases = {
            "add": (da + db, a + b),
            "add_alpha": (torch.add(da, db, alpha=2.5), torch.add(a, b, alpha=2.5)),
            "mul": (da * db, a * b),
            "scalar": (da * 3 + 1, a * 3 + 1),
            "broadcast": (da + db[0], a + b[0]),
            "sum": (da.sum(), a.sum()),
            "sum_dim": (da.sum(dim=1), a.sum(dim=1)),
            "sum_keepdim": (da.sum(dim=0, keepdim=True), a.sum(dim=0, keepdim=True)),
            "matmul": (da @ db.t(), a @ b.t()),  # through the CPU fallback
            "sin": (torch.sin(da), torch.sin(a)),
            "index": (da[1:3, ::2], a[1:3, ::2]),
        }
        for name, (got, expected) in cases.items():
            self.assertEqual(got.device.type, DEVICE, name)
            self.assertEqual(got.shape, expected.shape, name)
            torch.testing.assert_close(got.cpu(), expected, msg=name, rtol=1e-5, atol=1e-5)

    def test_integer_ops(self) -> None:
        a = torch.arange(12).reshape(3, 4)
        d = a.to(DEVICE)
        self.assertTrue(torch.equal((d + d * 2).cpu(), a + a * 2))
        self.assertTrue(torch.equal(d.sum(dim=0).cpu(), a.sum(dim=0)))

    def test_in_place(self) -> None:
        a, b = torch.randn(3, 3), torch.randn(3, 3)
        d = a.to(DEVICE)
        d.add_(b.to(DEVICE), alpha=-0.5)
        d.mul_(2)
        torch.testing.assert_close(d.cpu(), (a - 0.5 * b) * 2)

    def test_factories(self) -> None:
        self.assertTrue(torch.equal(torch.zeros(2, 3, device=DEVICE).cpu(), torch.zeros(2, 3)))
        self.assertTrue(
            torch.equal(
                torch.ones(4, dtype=torch.int64, device=DEVICE).cpu(),
                torch.ones(4, dtype=torch.int64),
            )
        )
        self.assertTrue(
            torch.equal(torch.full((2,), 7.5, device=DEVICE).cpu(), torch.full((2,), 7.5))
        )
        self.assertTrue(torch.equal(torch.arange(5, device=DEVICE).cpu(), torch.arange(5)))

    def test_views_share_storage(self) -> None:
        d = torch.zeros(4, 4, device=DEVICE)
        d.view(16)[:4].fill_(1)  # view + as_strided + native fill on a view
        d.t()[1].fill_(2)  # a strided column
        expected = torch.zeros(4, 4)
        expected.view(16)[:4].fill_(1)
        expected.t()[1].fill_(2)
        self.assertTrue(torch.equal(d.cpu(), expected))
        self.assertEqual(d.view(2, 8).untyped_storage().data_ptr(), d.untyped_storage().data_ptr())
        self.assertEqual(d.unfold(0, 2, 2).shape, torch.Size([2, 4, 2]))

    def test_set_shares_storage(self) -> None:
        src = torch.arange(10.0, device=DEVICE)
        t = torch.empty(0, device=DEVICE)
        t.set_(src.untyped_storage(), 2, (2, 2), (3, 1))
        self.assertEqual(t.cpu().tolist(), [[2.0, 3.0], [5.0, 6.0]])
        u = torch.empty(0, device=DEVICE)
        u.set_(src)
        self.assertEqual(u.untyped_storage().data_ptr(), src.untyped_storage().data_ptr())
        w = torch.empty(0, device=DEVICE)
        w.set_(src.untyped_storage())
        self.assertEqual(w.shape, torch.Size([10]))
        src.fill_(1)
        self.assertTrue(bool((t.cpu() == 1).all()))

    def test_resize_keeps_contents(self) -> None:
        d = torch.arange(4.0, device=DEVICE)
        d.resize_(2, 8)
        self.assertEqual(d.shape, torch.Size([2, 8]))
        self.assertEqual(d.view(-1)[:4].cpu().tolist(), [0.0, 1.0, 2.0, 3.0])
        storage = torch.arange(4.0, device=DEVICE).untyped_storage()
        storage.resize_(64)
        self.assertEqual(storage.nbytes(), 64)
        self.assertEqual(storage.device.type, DEVICE)

    def test_complex_views(self) -> None:
        z = torch.randn(3, 2).to(DEVICE)
        c = torch.view_as_complex(z)
        self.assertEqual(c.dtype, torch.complex64)
        self.assertTrue(torch.equal(torch.view_as_real(c).cpu(), z.cpu()))

    def test_conjugate_and_negative_views_copy(self) -> None:
        # Lazy conj/neg bits are materialised by copy_ (an fft on the device relies on it).
        z = torch.randn(4, dtype=torch.complex64)
        d = z.to(DEVICE)
        self.assertTrue(d.conj().is_conj())
        self.assertTrue(torch.equal(d.conj().cpu(), z.conj_physical()))
        self.assertTrue(torch.equal(d.conj().resolve_conj().cpu(), z.conj_physical()))
        on_device = torch.empty(4, dtype=torch.complex64, device=DEVICE).copy_(d.conj())
        self.assertTrue(torch.equal(on_device.cpu(), z.conj_physical()))
        negative = d._neg_view()
        self.assertTrue(negative.is_neg())
        self.assertTrue(torch.equal(negative.resolve_neg().cpu(), -z))
        host = torch.zeros(4, dtype=torch.complex64).copy_(d.conj()._neg_view())
        self.assertTrue(torch.equal(host, -z.conj_physical()))

    def test_non_contiguous_copies(self) -> None:
        x = torch.randn(5, 6)
        d = x.to(DEVICE)
        self.assertTrue(torch.equal(d.t().cpu(), x.t()))  # device -> host, strided
        self.assertTrue(
            torch.equal(d[:, ::3].contiguous().cpu(), x[:, ::3])
        )  # device -> device, strided
        target = torch.zeros(6, 5, device=DEVICE).t()
        target.copy_(x)  # host -> strided device
        self.assertTrue(torch.equal(target.cpu(), x))

    def test_dtype_conversion_in_copy(self) -> None:
        x = torch.randn(4, 4)
        d = x.to(DEVICE)
        self.assertTrue(torch.equal(d.double().cpu(), x.double()))
        self.assertTrue(torch.equal(d.to(torch.int32).cpu(), x.to(torch.int32)))
        self.assertTrue(torch.equal(x.to(DEVICE, dtype=torch.float64).cpu(), x.double()))

    def test_copies_and_fills_in_every_dtype(self) -> None:
        # On the device, from every dtype to every other, out of strided and broadcast
        # sources; fill_ in every dtype, of strided views, with stock's overflow check.
        # Values are whole, non-negative and below 100, so every conversion is exact.
        dtypes = (torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
                  torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.complex64,
                  torch.complex128)
        x = torch.randint(0, 100, (6, 5))
        for source_dtype in dtypes:
            source = x.to(source_dtype)
            on_device = source.to(DEVICE)
            for dtype in dtypes:
                if source_dtype.is_complex and not dtype.is_complex:
                    continue  # a warning of its own (stock's copy_ discards the imaginary part)
                with self.subTest(source=source_dtype, dtype=dtype):
                    converted = on_device.t().to(dtype)
                    self.assertTrue(torch.equal(converted.cpu(), source.t().to(dtype)))
                    rows = torch.empty(4, 5, dtype=dtype, device=DEVICE).copy_(on_device[1])
                    self.assertTrue(torch.equal(rows.cpu(), source[1].expand(4, 5).to(dtype)))
        for dtype in dtypes:
            with self.subTest(fill=dtype):
                filled = torch.zeros(4, 6, dtype=dtype, device=DEVICE)
                filled.t()[::2].fill_(7)
                expected = torch.zeros(4, 6, dtype=dtype)
                expected.t()[::2].fill_(7)
                self.assertTrue(torch.equal(filled.cpu(), expected))
        overflow = "value cannot be converted to type int8_t without overflow"
        with self.assertRaisesRegex(RuntimeError, overflow):
            torch.zeros(3, dtype=torch.int8, device=DEVICE).fill_(300)

    def test_item_and_comparison(self) -> None:
        d = torch.tensor([3.5, -1.0], device=DEVICE)
        self.assertEqual(d[0].item(), 3.5)
        self.assertEqual(d.sum().item(), 2.5)
        self.assertTrue(bool((d > 0)[0]))

    @requires_devices(2)
    def test_copy_across_devices(self) -> None:
        x = torch.randn(8, 3)
        d0 = x.to(device(0))
        d1 = d0.to(device(1))
        self.assertEqual(d1.device, device(1))
        self.assertTrue(torch.equal(d1.cpu(), x))
        back = torch.empty(3, 8, device=device(0))
        back.copy_(d1.t())  # strided source on another device
        self.assertTrue(torch.equal(back.cpu(), x.t()))
        mixed = d1.to(device(0), dtype=torch.float64)
        self.assertTrue(torch.equal(mixed.cpu(), x.double()))

    def test_pinned_memory(self) -> None:
        x = torch.randn(64).pin_memory()
        self.assertTrue(x.is_pinned())
        d = x.to(DEVICE, non_blocking=True)
        mod.synchronize()
        self.assertTrue(torch.equal(d.cpu(), x))
        out = torch.empty(64).pin_memory()
        out.copy_(d, non_blocking=True)
        mod.synchronize()
        self.assertTrue(torch.equal(out, x))
        # Slices of pinned tensors (pointers inside a pinned block), both directions.
        half = torch.empty(32, device=DEVICE)
        half.copy_(x[32:], non_blocking=True)
        out[:32].copy_(half, non_blocking=True)
        mod.synchronize()
        self.assertTrue(torch.equal(out[:32], x[32:]))


if __name__ == "__main__":
    main()
