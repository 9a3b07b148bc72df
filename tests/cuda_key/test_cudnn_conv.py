"""cuDNN's convolutions on the CUDA key: torch.cudnn_convolution and
torch.cudnn_convolution_transpose are cuDNN plans (a frontend graph whose engine is chosen
once per shape, by heuristics or, with benchmark, by timing, kept in the device's cache, then
run as conv_fprop or conv_dgrad) and agree with the CPU's convolutions.

On the simulated variant the plan runs on the host with cuDNN's semantics (the descriptors'
strides, the filter's NCHW or NHWC format, groups, beta 0; float inputs rounded to TF32
when allow_tf32 is on), so a wrong stride or filter format in a plan fails here.
Everything runs with TORCH_CUDA_FALLBACK=error. The real executor is tested without torch
in tests/gpu:cudnn_test."""

from __future__ import annotations

import unittest

import torch
import torch.nn.functional as F
from library_calls import RECORDED, LibraryCalls
from no_fallback import NoFallbackCase

CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}
CONV_T = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}
# (input, weight, padding, stride, dilation, groups)
SHAPES = [
    ((2, 4, 9), (6, 2, 3), [1], [2], [1], 2),
    ((2, 3, 7, 6), (5, 3, 3, 2), [1, 0], [1, 2], [2, 1], 1),
    ((1, 4, 5, 5), (4, 1, 3, 3), [1, 1], [1, 1], [1, 1], 4),
    ((2, 2, 4, 5, 3), (4, 2, 2, 3, 1), [1, 0, 0], [1, 2, 1], [1, 1, 1], 1),
]


def cudnn_convolution(
    x: torch.Tensor,
    w: torch.Tensor,
    padding: list[int],
    stride: list[int],
    dilation: list[int],
    groups: int,
    allow_tf32: bool = False,
    benchmark: bool = False,
    deterministic: bool = False,
) -> torch.Tensor:
    return torch.cudnn_convolution(
        x, w, padding, stride, dilation, groups, benchmark, deterministic, allow_tf32
    )


class ForwardAgreesWithTheCpu(NoFallbackCase):
    def test_each_shape_and_memory_format(self) -> None:
        for input_size, weight_size, padding, stride, dilation, groups in SHAPES:
            dims = len(input_size) - 2
            x, w = torch.randn(input_size), torch.randn(weight_size)
            expected = CONV[dims](x.double(), w.double(), None, stride, padding, dilation, groups)
            formats = [torch.contiguous_format]
            formats += {2: [torch.channels_last], 3: [torch.channels_last_3d]}.get(dims, [])
            for memory_format in formats:
                with self.subTest(input=input_size, memory_format=memory_format):
                    xd = x.cuda().contiguous(memory_format=memory_format)
                    got = cudnn_convolution(xd, w.cuda(), padding, stride, dilation, groups)
                    self.assertEqual(got.device.type, "cuda")
                    # stock's cuDNN path: the output in the input's (or weight's) format
                    self.assertTrue(got.is_contiguous(memory_format=memory_format))
                    torch.testing.assert_close(got.cpu().double(), expected, rtol=1e-5, atol=1e-5)

    def test_dtypes(self) -> None:
        x, w = torch.randn(2, 3, 6, 6), torch.randn(4, 3, 3, 3)
        expected = F.conv2d(x.double(), w.double(), padding=1)
        for dtype, tolerance in (
            (torch.float64, 1e-12),
            (torch.float16, 2e-2),
            (torch.bfloat16, 1e-1),
        ):
            with self.subTest(dtype=dtype):
                got = cudnn_convolution(
                    x.to("cuda", dtype), w.to("cuda", dtype), [1, 1], [1, 1], [1, 1], 1
                )
                self.assertEqual(got.dtype, dtype)
                torch.testing.assert_close(
                    got.cpu().double(),
                    expected,
                    rtol=tolerance,
                    atol=tolerance * float(expected.abs().max()),
                )

    def test_allow_tf32_rounds_float_inputs_as_tensor_cores_do(self) -> None:
        x, w = torch.randn(1, 8, 8, 8), torch.randn(8, 8, 3, 3)
        exact = F.conv2d(x.double(), w.double())
        fp32 = cudnn_convolution(x.cuda(), w.cuda(), [0, 0], [1, 1], [1, 1], 1, allow_tf32=False)
        tf32 = cudnn_convolution(x.cuda(), w.cuda(), [0, 0], [1, 1], [1, 1], 1, allow_tf32=True)
        fp32_error = float((fp32.cpu().double() - exact).abs().max())
        tf32_error = float((tf32.cpu().double() - exact).abs().max())
        self.assertLess(fp32_error, 1e-5)
        self.assertGreater(tf32_error, 10 * fp32_error)  # TF32 keeps 10 mantissa bits
        self.assertLess(tf32_error, 5e-2)

    def test_empty_batch(self) -> None:
        got = cudnn_convolution(
            torch.randn(0, 3, 5, 5).cuda(),
            torch.randn(2, 3, 3, 3).cuda(),
            [0, 0],
            [1, 1],
            [1, 1],
            1,
        )
        self.assertEqual(got.shape, (0, 2, 3, 3))

    def test_out_overload(self) -> None:
        x, w = torch.randn(1, 2, 5, 5), torch.randn(3, 2, 3, 3)
        out = torch.empty(0, device="cuda")
        torch.ops.aten.cudnn_convolution.out(
            x.cuda(), w.cuda(), [1, 1], [1, 1], [1, 1], 1, False, False, False, out=out
        )
        torch.testing.assert_close(out.cpu(), F.conv2d(x, w, padding=1), rtol=1e-5, atol=1e-5)


class TransposeAgreesWithTheCpu(NoFallbackCase):
    def test_each_shape_with_output_padding(self) -> None:
        for input_size, weight_size, padding, stride, dilation, groups in SHAPES:
            dims = len(input_size) - 2
            # the transposed convolution's weight is (C_in, C_out / groups, kernel...)
            in_channels = input_size[1]
            weight = torch.randn(in_channels, weight_size[0] // groups, *weight_size[2:])
            x = torch.randn(input_size)
            output_padding = [s - 1 for s in stride]
            with self.subTest(input=input_size):
                got = torch.cudnn_convolution_transpose(
                    x.cuda(),
                    weight.cuda(),
                    padding,
                    output_padding,
                    stride,
                    dilation,
                    groups,
                    False,
                    False,
                    False,
                )
                expected = CONV_T[dims](
                    x.double(),
                    weight.double(),
                    None,
                    stride,
                    padding,
                    output_padding,
                    groups,
                    dilation,
                )
                torch.testing.assert_close(got.cpu().double(), expected, rtol=1e-5, atol=1e-5)


class GradientsFlow(NoFallbackCase):
    def test_autograd_through_cudnn_convolution(self) -> None:
        x = torch.randn(2, 4, 6, 6, dtype=torch.float64)
        w = torch.randn(6, 2, 3, 3, dtype=torch.float64)
        xd, wd = x.cuda().requires_grad_(), w.cuda().requires_grad_()
        cudnn_convolution(xd, wd, [1, 1], [2, 1], [1, 1], 2).square().sum().backward()
        xc, wc = x.clone().requires_grad_(), w.clone().requires_grad_()
        F.conv2d(xc, wc, None, [2, 1], [1, 1], [1, 1], 2).square().sum().backward()
        torch.testing.assert_close(xd.grad.cpu(), xc.grad)
        torch.testing.assert_close(wd.grad.cpu(), wc.grad)


@unittest.skipUnless(RECORDED, "the real variant records no library calls")
class PlansAreCuDnnCalls(NoFallbackCase):
    def test_an_algorithm_is_chosen_once_per_shape(self) -> None:
        x, w = torch.randn(1, 3, 11, 13).cuda(), torch.randn(2, 3, 3, 3).cuda()
        with LibraryCalls() as calls:
            for _ in range(3):
                cudnn_convolution(x, w, [0, 0], [1, 1], [1, 1], 1)
        self.assertEqual(
            calls.made,
            {"cudnn_frontend::conv_fprop::heuristics": 1, "cudnn_frontend::conv_fprop": 3},
        )
        with LibraryCalls() as calls:
            cudnn_convolution(x, w, [0, 0], [1, 1], [1, 1], 1, benchmark=True)
        self.assertEqual(
            calls.made, {"cudnn_frontend::conv_fprop::autotune": 1, "cudnn_frontend::conv_fprop": 1}
        )

    def test_transpose_is_backward_data(self) -> None:
        with LibraryCalls() as calls:
            torch.cudnn_convolution_transpose(
                torch.randn(1, 2, 4, 4).cuda(),
                torch.randn(2, 3, 3, 3).cuda(),
                [0, 0],
                [0, 0],
                [1, 1],
                [1, 1],
                1,
                False,
                False,
                False,
            )
        self.assertEqual(
            calls.made,
            {"cudnn_frontend::conv_dgrad::heuristics": 1, "cudnn_frontend::conv_dgrad": 1},
        )


class BadInputs(NoFallbackCase):
    def test_integer_tensors_are_refused_with_what_to_do(self) -> None:
        x = torch.ones(1, 1, 3, 3, dtype=torch.int64, device="cuda")
        with self.assertRaisesRegex(
            RuntimeError, "not supported for Long: .*float, double, half and bfloat16 tensors"
        ):
            cudnn_convolution(x, x, [0, 0], [1, 1], [1, 1], 1)

    def test_backward_checks_the_gradient_against_its_operands(self) -> None:
        # convolution_backward checks input against weight; the cuDNN stubs check grad_output.
        x, w = torch.randn(1, 2, 5, 5, device="cuda"), torch.randn(3, 2, 3, 3, device="cuda")
        grad = torch.randn(1, 3, 3, 3, device="cuda", dtype=torch.double)
        with self.assertRaisesRegex(RuntimeError, "'grad_output' to have the same type"):
            torch.ops.aten.convolution_backward(
                grad, x, w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1, [True, True, False]
            )

    def test_stock_checks_and_messages(self) -> None:
        x = torch.randn(1, 3, 5, 5, device="cuda")
        same_type = "to have the same type as tensor for argument #2 'weight'"
        with self.assertRaisesRegex(RuntimeError, same_type):
            cudnn_convolution(
                x,
                torch.randn(2, 3, 3, 3, device="cuda", dtype=torch.float64),
                [0, 0],
                [1, 1],
                [1, 1],
                1,
            )
        with self.assertRaisesRegex(RuntimeError, r"Expected tensor to have size 4 at dimension 1"):
            cudnn_convolution(x, torch.randn(2, 4, 3, 3, device="cuda"), [0, 0], [1, 1], [1, 1], 1)
        with self.assertRaisesRegex(RuntimeError, "Stride must be greater than 0"):
            cudnn_convolution(x, torch.randn(2, 3, 3, 3, device="cuda"), [0, 0], [0, 1], [1, 1], 1)


if __name__ == "__main__":
    unittest.main()
