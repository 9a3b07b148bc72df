"""Convolutions on the device, forward and backward, against the CPU: 1-d, 2-d and 3-d,
strided, padded (numbers and "same"), dilated, grouped, depthwise, transposed (with
output_padding), with and without bias, and the errors stock raises for bad shapes and
dtypes; F.unfold and F.fold (im2col, col2im). Each one is every step on the device: the
CPU fallback raises, but on torch_sim for what it has no kernels of (below)."""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F
from backend import DEVICE, main, mod
from op_layer_case import OpLayerCase

Conv = Callable[..., torch.Tensor]

# (function, input shape, weight shape, keyword arguments)
CASES: list[tuple[Conv, tuple[int, ...], tuple[int, ...], dict]] = [
    (F.conv1d, (2, 3, 11), (4, 3, 3), {"stride": 2, "padding": 1}),
    (F.conv1d, (2, 4, 9), (6, 2, 2), {"groups": 2, "dilation": 3}),
    (F.conv2d, (2, 3, 9, 8), (5, 3, 3, 3), {"padding": 1}),
    (F.conv2d, (3, 4, 10, 7), (6, 2, 3, 2), {"stride": (2, 1), "padding": (1, 0), "groups": 2}),
    (F.conv2d, (2, 3, 12, 12), (4, 3, 3, 3), {"dilation": 2, "padding": "same"}),
    (F.conv2d, (2, 4, 8, 8), (8, 1, 3, 3), {"groups": 4, "padding": 1}),  # depthwise
    (F.conv2d, (2, 4, 9, 9), (4, 1, 3, 3), {"groups": 4, "dilation": 2, "stride": 2}),
    (F.conv2d, (1, 2, 6, 6), (3, 2, 1, 1), {"padding": "valid"}),
    (F.conv3d, (2, 2, 5, 6, 5), (3, 2, 2, 3, 2), {"stride": (1, 2, 1), "padding": 1}),
    (F.conv3d, (1, 3, 6, 6, 6), (3, 1, 3, 3, 3), {"groups": 3, "dilation": 2}),  # depthwise
    (F.conv_transpose1d, (2, 4, 7), (4, 3, 3), {"stride": 2, "output_padding": 1}),
    (F.conv_transpose2d, (2, 4, 5, 6), (4, 2, 3, 3), {"stride": 2, "padding": 1, "groups": 2}),
    (F.conv_transpose2d, (1, 3, 4, 4), (3, 2, 2, 3), {"dilation": (2, 1), "output_padding": (1, 0),
                                                      "stride": (2, 1)}),
    (F.conv_transpose3d, (1, 2, 3, 4, 3), (2, 3, 2, 2, 2), {"stride": 2, "padding": (0, 1, 0)}),
]


class Convolution(OpLayerCase):
    def setUp(self) -> None:
        super().setUp()
        # cuDNN rounds float32 inputs to TF32 by default, as on an Ampere GPU; stock's own
        # comparisons with the CPU turn it off (tf32_off), and so do these.
        allow_tf32 = torch.backends.cudnn.allow_tf32
        torch.backends.cudnn.allow_tf32 = False
        self.addCleanup(setattr, torch.backends.cudnn, "allow_tf32", allow_tf32)
        if DEVICE != "cuda":
            # torch_sim has no GEMM kernels (the CUDA key's are cuBLAS plans), so the
            # lowering's bmm runs on the CPU fallback; nor im2col/col2im, whose CUDA kernels
            # take other dtypes than the CPU's, which a PrivateUse1 device follows.
            mod.set_fallback_policy("allow")
            self.addCleanup(self.assert_only_expected_fell_back)

    def assert_only_expected_fell_back(self) -> None:
        expected = ("aten::bmm", "aten::im2col", "aten::col2im")
        others = [name for name in mod.fallback_counts() if not name.startswith(expected)]
        self.assertEqual(others, [])

    @staticmethod
    def output_and_gradients(fn: Conv, tensors: tuple[torch.Tensor | None, ...],
                             where: str) -> list[torch.Tensor]:
        """fn's output on `where` and, for a fixed cotangent, the gradient of every tensor
        (None passes through as None), all on the CPU."""
        leaves = [None if t is None else t.detach().to(where).requires_grad_() for t in tensors]
        out = fn(*leaves)
        cotangent = torch.linspace(-1, 1, out.numel(), dtype=out.dtype).reshape(out.shape)
        out.backward(cotangent.to(where))
        return [out.detach().cpu(), *(leaf.grad.cpu() for leaf in leaves if leaf is not None)]

    def check_with_gradients(self, fn: Conv, *tensors: torch.Tensor | None) -> None:
        """The device's output and gradients agree with the CPU's."""
        expected = self.output_and_gradients(fn, tensors, "cpu")
        actual = self.output_and_gradients(fn, tensors, DEVICE)
        for got, want in zip(actual, expected, strict=True):
            torch.testing.assert_close(got, want)

    def test_forward_and_backward_match_the_cpu(self) -> None:
        # On the CUDA key, through cuDNN and, with it turned off, torch_core's lowering.
        for cudnn in (True, False) if DEVICE == "cuda" else (True,):
            with torch.backends.cudnn.flags(enabled=cudnn, allow_tf32=False):
                self.check_cases(cudnn)

    def check_cases(self, cudnn: bool) -> None:
        for conv, x_shape, w_shape, kwargs in CASES:
            for bias in (True, False):
                with self.subTest(conv=conv.__name__, x=x_shape, w=w_shape, bias=bias,
                                  cudnn=cudnn, **kwargs):
                    x = torch.randn(x_shape, dtype=torch.float64)
                    w = torch.randn(w_shape, dtype=torch.float64)
                    transposed = conv.__name__.startswith("conv_transpose")
                    channels = w_shape[1] * kwargs.get("groups", 1) if transposed else w_shape[0]
                    b = torch.randn(channels, dtype=torch.float64) if bias else None
                    self.check_with_gradients(
                        lambda a, v, c, f=conv, k=kwargs: f(a, v, c, **k), x, w, b)

    def test_module_in_float_half_and_bfloat16(self) -> None:
        for dtype, tol in ((torch.float32, {}), (torch.float16, {"atol": 2e-2, "rtol": 2e-2}),
                           (torch.bfloat16, {"atol": 5e-2, "rtol": 5e-2})):
            with self.subTest(dtype=dtype):
                torch.manual_seed(0)
                conv = torch.nn.Conv2d(3, 4, 3, padding=1)
                x = torch.randn(2, 3, 6, 6)
                expected = conv(x)  # float32 on the CPU: the reference for every dtype
                on_device = conv.to(DEVICE, dtype)
                actual = on_device(x.to(DEVICE, dtype))
                self.assertEqual(actual.dtype, dtype)
                torch.testing.assert_close(actual.float().cpu(), expected.detach(), **tol)

    def test_channels_last_and_a_batch_made_in_slices(self) -> None:
        # 96 samples of 8 x 5 x 5 windows at 30 x 30 positions: more than the lowering's
        # 2**24 column elements, so forward and backward go a batch slice at a time.
        # (float64: the weight's gradient sums 86400 products.)
        x = torch.randn(96, 8, 30, 30, dtype=torch.float64).to(memory_format=torch.channels_last)
        w, b = torch.randn(16, 8, 5, 5, dtype=torch.float64), torch.randn(16, dtype=torch.float64)
        self.check_with_gradients(lambda a, v, c: F.conv2d(a, v, c, padding=2), x, w, b)

    def test_unfold_and_fold(self) -> None:
        x = torch.randn(2, 3, 7, 6, dtype=torch.float64)
        kwargs = {"kernel_size": (2, 3), "dilation": (1, 2), "padding": (1, 0), "stride": (2, 1)}
        self.check(lambda a: F.unfold(a, **kwargs), x)
        self.check(lambda a: F.unfold(a, **kwargs), x[0])  # unbatched
        self.check(lambda a: F.unfold(a, kernel_size=2), x.bool())
        columns = torch.randn(2, 3 * 2 * 3, 4 * 2, dtype=torch.float64)  # 4 x 2 blocks
        self.check(lambda a: F.fold(a, (7, 6), **kwargs), columns)
        self.check(lambda a: F.fold(a, (7, 6), **kwargs), columns[0])
        # Each one's gradient is the other.
        unfold = lambda a: F.unfold(a, **kwargs)  # noqa: E731
        fold = lambda a: F.fold(a, (7, 6), **kwargs)  # noqa: E731
        self.check_with_gradients(unfold, x)
        self.check_with_gradients(fold, columns)
        # Stock's shape checks: a kernel larger than the padded input, a block count that
        # does not match output_size.
        self.check(lambda a: F.unfold(a, kernel_size=9), x)
        self.check(lambda a: F.fold(a, (7, 7), **kwargs), columns)
        if DEVICE == "cuda":
            with self.assertRaisesRegex(NotImplementedError, "not implemented for 'Long'"):
                F.unfold(torch.ones(1, 1, 3, 3, dtype=torch.long, device=DEVICE), 2)

    def test_bad_shapes_and_dtypes_raise_as_on_the_cpu(self) -> None:
        x3, w3 = torch.randn(1, 3, 5, 5), torch.randn(4, 2, 3, 3)
        self.check(lambda a, b: F.conv2d(a, b), torch.randn(1, 3, 2, 2), torch.randn(4, 3, 3, 3))
        self.check(lambda a, b: F.conv2d(a, b), x3, w3)
        self.check(lambda a, b: F.conv2d(a, b, groups=2), x3, w3)
        x, w = torch.randint(-5, 5, (1, 2, 4, 4)), torch.randint(-5, 5, (3, 2, 2, 2))
        if DEVICE == "cuda":
            # Stock's CUDA build gives integer convolutions to cuDNN, which refuses them;
            # its own kernels, with cuDNN off, are floating-point only.
            for t in (torch.long, torch.bool):
                with self.assertRaisesRegex(RuntimeError, "not supported for (Long|Bool)"):
                    F.conv2d(x.to(DEVICE, t), w.to(DEVICE, t))
            with torch.backends.cudnn.flags(enabled=False):
                with self.assertRaisesRegex(NotImplementedError, "not implemented for 'Long'"):
                    F.conv2d(x.to(DEVICE), w.to(DEVICE))
        else:
            # A PrivateUse1 device follows the CPU, which convolves integers.
            self.check(F.conv2d, x, w)
            with self.assertRaisesRegex(NotImplementedError, "not implemented for 'Bool'"):
                F.conv2d(x.bool().to(DEVICE), w.bool().to(DEVICE))


if __name__ == "__main__":
    main()
