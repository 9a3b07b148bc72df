"""torch.fft on the CUDA key: each transform is a cuFFT plan (cufftXtMakePlanMany, once per
layout, from the device's plan cache) run by cufftXtExec, and agrees with the CPU.

On the simulated variant the plan runs on the host with cuFFT's semantics (its data layout,
onesided complex sides, unnormalised transforms, a C2R that overwrites its input), so a
wrong embedding or onesided size fails here. Everything runs with TORCH_CUDA_FALLBACK=error:
no transform reaches the CPU. The real executor is tested without torch in
tests/gpu:cufft_test."""

from __future__ import annotations

import unittest
from collections.abc import Callable

import torch
from library_calls import RECORDED, LibraryCalls

import torch_cuda

MAKE = "cufftXtMakePlanMany"
EXEC = "cufftXtExec"
NORMS = (None, "ortho", "forward")


def close(test: unittest.TestCase, actual: torch.Tensor, expected: torch.Tensor, what: str) -> None:
    if expected.dtype in (torch.float32, torch.complex64):
        tolerance = {"rtol": 1e-4, "atol": 1e-4 * max(1.0, float(expected.abs().max()))}
    else:
        tolerance = {}
    test.assertEqual(actual.device.type, "cuda", what)
    torch.testing.assert_close(actual.cpu(), expected, msg=lambda m: f"{what}: {m}", **tolerance)


class FftTestCase(unittest.TestCase):
    def setUp(self) -> None:
        torch.manual_seed(0)
        torch_cuda.set_fallback_policy("error")

    def tearDown(self) -> None:
        torch_cuda.set_fallback_policy("allow")

    def agree(
        self,
        fn: Callable[..., torch.Tensor],
        x: torch.Tensor,
        what: str,
        view: Callable[[torch.Tensor], torch.Tensor] = lambda t: t,
        **kwargs: object,
    ) -> None:
        """fn(view(x), **kwargs) on the device agrees with the CPU's."""
        close(self, fn(view(x.cuda()), **kwargs), fn(view(x), **kwargs), what)


class TransformsAgreeWithTheCpu(FftTestCase):
    def test_one_dimensional_transforms_in_each_dtype_size_and_norm(self) -> None:
        for dtype in (torch.float32, torch.float64, torch.complex64, torch.complex128):
            names = ["fft", "ifft"] + (["hfft"] if dtype.is_complex else ["rfft", "ihfft"])
            for n in (1, 2, 7, 8, 30, 97):
                x = torch.randn(3, n, dtype=dtype)
                for norm in NORMS:
                    for name in names:
                        if name == "hfft" and n == 1:
                            continue  # a real signal of 2 * (n - 1) = 0 points
                        what = f"{name} {dtype} n={n} norm={norm}"
                        self.agree(getattr(torch.fft, name), x, what, norm=norm)
                    if dtype.is_complex and n > 1:
                        what = f"irfft {dtype} n={2 * n - 1} norm={norm}"
                        self.agree(torch.fft.irfft, x, what, n=2 * n - 1, norm=norm)

    def test_signal_length_padding_and_truncation(self) -> None:
        x = torch.randn(4, 10)
        for n in (5, 10, 16):
            self.agree(torch.fft.rfft, x, f"rfft n={n}", n=n)
            self.agree(torch.fft.fft, x, f"fft n={n} dim=0", n=n, dim=0)

    def test_multi_dimensional_transforms(self) -> None:
        real = torch.randn(2, 6, 5, 8, dtype=torch.float64)
        cplx = torch.randn(2, 6, 5, 8, dtype=torch.complex128)
        cases: dict[str, tuple[Callable[[torch.Tensor], torch.Tensor], torch.Tensor]] = {
            "fft2": (torch.fft.fft2, cplx),
            "ifft2 over (0, 2)": (lambda t: torch.fft.ifft2(t, dim=(0, 2)), cplx),
            # Four dimensions: three in one plan, then one more.
            "fftn over every dimension": (torch.fft.fftn, cplx),
            "rfft2": (torch.fft.rfft2, real),
            # A leading (0, 1): stock's R2C of the last dimension, then C2C of the others.
            "rfftn over (0, 1, 3)": (
                lambda t: torch.fft.rfftn(t, dim=(0, 1, 3), norm="ortho"),
                real,
            ),
            "rfftn over every dimension": (torch.fft.rfftn, real),
            "irfft2 with s": (lambda t: torch.fft.irfft2(t, s=(5, 9)), cplx),
            "irfftn over (0, 1)": (lambda t: torch.fft.irfftn(t, dim=(0, 1)), cplx),
            "irfftn over every dimension": (lambda t: torch.fft.irfftn(t, norm="forward"), cplx),
            "hfftn": (lambda t: torch.fft.hfftn(t, dim=(1, 2)), cplx),
            "ihfft2": (torch.fft.ihfft2, real),
        }
        for what, (fn, x) in cases.items():
            self.agree(fn, x, what)

    def test_real_input_to_a_complex_transform_fills_the_other_half(self) -> None:
        # fft of a real tensor is a two-sided R2C: the half cuFFT does not write comes from
        # conjugate symmetry, mirrored in every transformed dimension.
        x = torch.randn(3, 7, 6, dtype=torch.float64)
        self.agree(torch.fft.fft, x, "fft of real")
        self.agree(torch.fft.fft2, x, "fft2 of real")
        self.agree(lambda t: torch.fft.fftn(t, dim=(0, 2)), x, "fftn of real over (0, 2)")
        self.agree(lambda t: torch.fft.fftn(t, norm="ortho"), x, "fftn of real, ortho")

    def test_strided_transposed_expanded_and_misaligned_inputs(self) -> None:
        base = torch.randn(8, 12, dtype=torch.float32)
        cbase = torch.randn(8, 12, dtype=torch.complex64)
        inputs = {
            "every other column": lambda t: t[:, ::2],
            "transposed": lambda t: t.t(),
            "expanded batch": lambda t: t[:1].expand(5, 12),
            "offset by one element": lambda t: t.flatten()[1:61].view(5, 12),
            "negative view through flip": lambda t: t.flip(0),
        }
        for what, view in inputs.items():
            self.agree(torch.fft.rfft, base, f"rfft of {what}", view=view)
            self.agree(torch.fft.fft2, cbase, f"fft2 of {what}", view=view)
            self.agree(torch.fft.irfft, cbase, f"irfft of {what}", view=view)

    def test_out_variants_write_into_the_given_tensor(self) -> None:
        x = torch.randn(4, 16, dtype=torch.float64)
        c = torch.randn(4, 16, dtype=torch.complex128)
        for name, arg, out_dtype in (
            ("fft", c, torch.complex128),
            ("fft", x, torch.complex128),
            ("rfft", x, torch.complex128),
            ("irfft", c, torch.float64),
        ):
            out = torch.empty(0, dtype=out_dtype, device="cuda")
            result = getattr(torch.fft, name)(arg.cuda(), norm="ortho", out=out)
            self.assertIs(result, out, name)
            close(self, out, getattr(torch.fft, name)(arg, norm="ortho"), f"{name} out=")

    def test_the_input_of_an_inverse_real_transform_is_left_as_it_was(self) -> None:
        # cuFFT's C2R overwrites its input (the simulated executor does): irfft transforms a copy.
        spectrum = torch.randn(3, 9, dtype=torch.complex64, device="cuda")
        before = spectrum.clone()
        torch.fft.irfft(spectrum)
        torch.fft.irfftn(spectrum, dim=(0, 1))
        torch.testing.assert_close(spectrum, before, rtol=0, atol=0)

    def test_half_needs_power_of_two_sizes_and_bfloat16_is_refused(self) -> None:
        x = torch.randn(4, 16)
        half = torch.fft.rfft(x.half().cuda())
        self.assertEqual(half.dtype, torch.complex32)
        expected = torch.fft.rfft(x.half().float())
        torch.testing.assert_close(half.cpu().to(torch.complex64), expected, rtol=1e-2, atol=2e-2)
        roundtrip = torch.fft.irfft(torch.fft.fft(x.half().cuda())[:, :9], n=16)
        torch.testing.assert_close(roundtrip.float().cpu(), x.half().float(), rtol=1e-2, atol=1e-2)
        not_power_of_two = "half type with size at any dimension that is not a power of two"
        with self.assertRaisesRegex(RuntimeError, not_power_of_two):
            torch.fft.fft(torch.randn(10, dtype=torch.half, device="cuda"))
        # torch.fft's frontend refuses bfloat16 (stock CUDA torch's does too).
        with self.assertRaisesRegex(RuntimeError, "Unsupported dtype BFloat16"):
            torch.fft.rfft(x.bfloat16().cuda())

    def test_empty_batches_give_empty_results(self) -> None:
        # The CPU's MKL refuses an empty batch; pocketfft and the device give an empty result.
        for fn, dtype, last in (
            (torch.fft.fft, torch.complex64, 8),
            (torch.fft.rfft, torch.float32, 5),
            (torch.fft.irfft, torch.complex64, 14),
        ):
            result = fn(torch.randn(0, 8, dtype=dtype, device="cuda"))
            self.assertEqual(result.shape, (0, last), fn.__name__)

    def test_gradients(self) -> None:
        x = torch.randn(3, 6, dtype=torch.float64, device="cuda", requires_grad=True)
        c = torch.randn(3, 6, dtype=torch.complex128, device="cuda", requires_grad=True)
        self.assertTrue(torch.autograd.gradcheck(lambda t: torch.fft.rfft(t, norm="ortho"), (x,)))
        self.assertTrue(torch.autograd.gradcheck(lambda t: torch.fft.irfft(t, n=10), (c,)))
        self.assertTrue(torch.autograd.gradcheck(lambda t: torch.fft.fft2(t), (c,)))
        self.assertTrue(torch.autograd.gradcheck(lambda t: torch.fft.fft(t), (x,)))

    def test_stft_and_istft_round_trip(self) -> None:
        signal = torch.randn(2, 400)
        window = torch.hann_window(64)

        def stft(t: torch.Tensor) -> torch.Tensor:
            return torch.stft(t, 64, hop_length=16, window=window.to(t.device), return_complex=True)

        self.agree(stft, signal, "stft")
        spectrum = stft(signal.cuda())
        back = torch.istft(spectrum, 64, hop_length=16, window=window.cuda(), length=400)
        close(self, back, signal, "istft(stft(x))")


class PlanCacheTestCase(FftTestCase):
    def setUp(self) -> None:
        super().setUp()
        for device in range(torch.cuda.device_count()):
            torch.backends.cuda.cufft_plan_cache[device].clear()

    def tearDown(self) -> None:
        for device in range(torch.cuda.device_count()):
            torch.backends.cuda.cufft_plan_cache[device].max_size = 4096
        super().tearDown()


class PlanCache(PlanCacheTestCase):
    """torch.backends.cuda.cufft_plan_cache, on either variant."""

    def test_plans_are_cached_per_layout_and_max_size_evicts(self) -> None:
        cache = torch.backends.cuda.cufft_plan_cache[0]
        self.assertEqual((cache.size, cache.max_size), (0, 4096))
        x = torch.randn(4, 32, device="cuda")
        torch.fft.rfft(x)
        torch.fft.rfft(x)
        self.assertEqual(cache.size, 1, "the second transform reuses the plan")
        torch.fft.rfft(x[:, ::2])
        torch.fft.fft(torch.randn(8, dtype=torch.complex64, device="cuda"))
        self.assertEqual(cache.size, 3, "another layout, another transform: other plans")
        cache.max_size = 2
        self.assertEqual((cache.size, cache.max_size), (2, 2))
        cache.max_size = 0
        torch.fft.rfft(x)
        self.assertEqual(cache.size, 0, "max_size 0 keeps no plan")
        cache.max_size = 4
        torch.fft.rfft(x)
        cache.clear()
        self.assertEqual((cache.size, cache.max_size), (0, 4))

    @unittest.skipUnless(torch.cuda.device_count() >= 2, "needs two devices")
    def test_each_device_has_its_own_cache(self) -> None:
        torch.fft.fft(torch.randn(8, dtype=torch.complex64, device="cuda:1"))
        self.assertEqual(torch.backends.cuda.cufft_plan_cache[1].size, 1)
        self.assertEqual(torch.backends.cuda.cufft_plan_cache[0].size, 0)
        with torch.cuda.device(1):
            self.assertEqual(torch.backends.cuda.cufft_plan_cache.size, 1)

    def test_bad_cache_arguments_are_refused_as_stock_refuses_them(self) -> None:
        count = torch.cuda.device_count()
        with self.assertRaisesRegex(RuntimeError, "must be non-negative, but got -1"):
            torch.backends.cuda.cufft_plan_cache[0].max_size = -1
        bad_index = rf"expected 0 <= device_index < {count}\], but got device_index=5"
        with self.assertRaisesRegex(RuntimeError, bad_index):
            torch._cufft_get_plan_cache_size(5)
        bad_device = f"cufft_plan_cache: expected 0 <= device index < {count}"
        with self.assertRaisesRegex(RuntimeError, bad_device):
            torch.backends.cuda.cufft_plan_cache[5]


@unittest.skipUnless(
    RECORDED, "the real variant records no library calls; tests/gpu:cufft_test tests its executor"
)
class LibraryCallsOfATransform(PlanCacheTestCase):
    def test_a_transform_is_one_cufft_call_with_its_plan_cached(self) -> None:
        x = torch.randn(4, 32, device="cuda")
        with LibraryCalls() as first:
            torch.fft.rfft(x)
        self.assertEqual(first.made, {MAKE: 1, EXEC: 1})
        with LibraryCalls() as again:
            torch.fft.rfft(x)
        self.assertEqual(again.made, {EXEC: 1}, "the second transform reuses the cached plan")

    def test_without_a_cache_each_transform_makes_its_plan(self) -> None:
        torch.backends.cuda.cufft_plan_cache[0].max_size = 0
        x = torch.randn(8, dtype=torch.complex64, device="cuda")
        with LibraryCalls() as calls:
            torch.fft.fft(x)
            torch.fft.fft(x)
        self.assertEqual(calls.made, {MAKE: 2, EXEC: 2})

    def test_four_dimensions_are_two_plans(self) -> None:
        x = torch.randn(2, 3, 4, 5, dtype=torch.complex64, device="cuda")
        with LibraryCalls() as calls:
            torch.fft.fftn(x)
        self.assertEqual(calls.made, {MAKE: 2, EXEC: 2}, "three dimensions, then the fourth")


if __name__ == "__main__":
    unittest.main()
