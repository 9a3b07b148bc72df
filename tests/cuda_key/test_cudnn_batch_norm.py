"""cuDNN's batch norm on the CUDA key: torch.cudnn_batch_norm and
torch.cudnn_batch_norm_backward are cuDNN plans (cudnnBatchNormalizationForwardTrainingEx,
ForwardInference, BackwardEx) and agree with the CPU's batch norm: the output, the saved
mean and inverse standard deviation, the running statistics (the variance unbiased), and
the gradients of input, weight and bias.

On the simulated variant the plan runs on the host with cuDNN's semantics (the input
descriptor's strides, statistics per channel or per activation), so a wrong layout or
statistic in a plan fails here. Everything runs with TORCH_CUDA_FALLBACK=error. The real
executor is compiled for every configured architecture; it has not run on a GPU."""

from __future__ import annotations

import unittest

import torch
from library_calls import RECORDED, LibraryCalls
from no_fallback import NoFallbackCase

# (input size, memory format)
LAYOUTS = [
    ((6, 3), torch.contiguous_format),
    ((4, 3, 5), torch.contiguous_format),
    ((2, 3, 4, 5), torch.contiguous_format),
    ((2, 3, 4, 5), torch.channels_last),
    ((2, 3, 2, 3, 4), torch.contiguous_format),
    ((2, 3, 2, 3, 4), torch.channels_last_3d),
]
EPS = 1e-5
MOMENTUM = 0.1


def parameters(channels: int, dtype: torch.dtype = torch.float32) -> list[torch.Tensor]:
    """weight, bias, running mean, running var."""
    return [
        torch.rand(channels, dtype=dtype) + 0.5,
        torch.randn(channels, dtype=dtype),
        torch.randn(channels, dtype=dtype),
        torch.rand(channels, dtype=dtype) + 0.5,
    ]


def on_cuda(tensors: list[torch.Tensor]) -> list[torch.Tensor]:
    return [t.cuda() for t in tensors]


class ForwardAgreesWithTheCpu(NoFallbackCase):
    def test_training_each_layout(self) -> None:
        for size, memory_format in LAYOUTS:
            with self.subTest(size=size, memory_format=memory_format):
                x = torch.randn(size, dtype=torch.float64).contiguous(memory_format=memory_format)
                cpu = parameters(size[1], torch.float64)
                gpu = on_cuda(cpu)
                out, mean, invstd, reserve = torch.cudnn_batch_norm(
                    x.cuda(), *gpu, True, MOMENTUM, EPS
                )
                expected, e_mean, e_invstd = torch.native_batch_norm(
                    x, *cpu, True, MOMENTUM, EPS
                )
                self.assertEqual(out.device.type, "cuda")
                self.assertTrue(out.is_contiguous(memory_format=memory_format))
                torch.testing.assert_close(out.cpu(), expected)
                torch.testing.assert_close(mean.cpu(), e_mean)
                torch.testing.assert_close(invstd.cpu(), e_invstd)
                # native_batch_norm updated cpu's running statistics as cuDNN did gpu's
                torch.testing.assert_close(gpu[2].cpu(), cpu[2])
                torch.testing.assert_close(gpu[3].cpu(), cpu[3])
                self.assertEqual(reserve.dtype, torch.uint8)

    def test_running_variance_is_unbiased(self) -> None:
        x = torch.tensor([[1.0], [3.0]], dtype=torch.float64)
        weight, bias = torch.ones(1, dtype=torch.float64), torch.zeros(1, dtype=torch.float64)
        running_mean, running_var = torch.zeros(1).double().cuda(), torch.ones(1).double().cuda()
        torch.cudnn_batch_norm(
            x.cuda(), weight.cuda(), bias.cuda(), running_mean, running_var, True, 0.5, 0.0
        )
        # batch mean 2, biased variance 1, unbiased 2
        self.assertEqual(running_mean.cpu().item(), 1.0)
        self.assertEqual(running_var.cpu().item(), 1.5)

    def test_training_without_running_statistics(self) -> None:
        x = torch.randn(4, 3, 5, 5)
        weight, bias, _, _ = parameters(3)
        out, _, invstd, _ = torch.cudnn_batch_norm(
            x.cuda(), weight.cuda(), bias.cuda(), None, None, True, MOMENTUM, EPS
        )
        expected, _, e_invstd = torch.native_batch_norm(
            x, weight, bias, None, None, True, MOMENTUM, EPS
        )
        torch.testing.assert_close(out.cpu(), expected)
        torch.testing.assert_close(invstd.cpu(), e_invstd)

    def test_inference_each_layout(self) -> None:
        for size, memory_format in LAYOUTS:
            with self.subTest(size=size, memory_format=memory_format):
                x = torch.randn(size, dtype=torch.float64).contiguous(memory_format=memory_format)
                cpu = parameters(size[1], torch.float64)
                out, mean, invstd, reserve = torch.cudnn_batch_norm(
                    x.cuda(), *on_cuda(cpu), False, MOMENTUM, EPS
                )
                expected, _, _ = torch.native_batch_norm(x, *cpu, False, MOMENTUM, EPS)
                torch.testing.assert_close(out.cpu(), expected)
                self.assertTrue(out.is_contiguous(memory_format=memory_format))
                # stock's inference returns empty statistics and reserve
                self.assertEqual([mean.numel(), invstd.numel(), reserve.numel()], [0, 0, 0])

    def test_half_input_with_float_parameters(self) -> None:
        x = torch.randn(4, 3, 6, 6)
        params = parameters(3)
        out, mean, _, _ = torch.cudnn_batch_norm(
            x.half().cuda(), *on_cuda(params), True, MOMENTUM, EPS
        )
        expected, e_mean, _ = torch.native_batch_norm(
            x, *[p.clone() for p in params], True, MOMENTUM, EPS
        )
        self.assertEqual((out.dtype, mean.dtype), (torch.float16, torch.float32))
        torch.testing.assert_close(out.cpu().float(), expected, rtol=2e-3, atol=2e-3)
        torch.testing.assert_close(mean.cpu(), e_mean, rtol=1e-3, atol=1e-3)


class BackwardAgreesWithTheCpu(NoFallbackCase):
    def test_autograd_each_layout(self) -> None:
        for size, memory_format in LAYOUTS:
            with self.subTest(size=size, memory_format=memory_format):
                x = torch.randn(size, dtype=torch.float64).contiguous(memory_format=memory_format)
                weight, bias, running_mean, running_var = parameters(size[1], torch.float64)
                grad = torch.randn(size, dtype=torch.float64)
                xg, wg, bg = (t.cuda().requires_grad_() for t in (x, weight, bias))
                out = torch.cudnn_batch_norm(
                    xg, wg, bg, running_mean.cuda(), running_var.cuda(), True, MOMENTUM, EPS
                )[0]
                out.backward(grad.cuda())
                xc, wc, bc = (t.clone().requires_grad_() for t in (x, weight, bias))
                torch.native_batch_norm(
                    xc, wc, bc, running_mean, running_var, True, MOMENTUM, EPS
                )[0].backward(grad)
                for got, expected in ((xg, xc), (wg, wc), (bg, bc)):
                    torch.testing.assert_close(got.grad.cpu(), expected.grad)
                self.assertTrue(xg.grad.is_contiguous(memory_format=memory_format))

    def test_backward_operator_directly(self) -> None:
        x, grad = torch.randn(3, 2, 4, 4), torch.randn(3, 2, 4, 4)
        weight, bias, running_mean, running_var = on_cuda(parameters(2))
        _, mean, invstd, reserve = torch.cudnn_batch_norm(
            x.cuda(), weight, bias, running_mean, running_var, True, MOMENTUM, EPS
        )
        dx, dw, db = torch.ops.aten.cudnn_batch_norm_backward(
            x.cuda(), grad.cuda(), weight, running_mean, running_var, mean, invstd, EPS, reserve
        )
        e_dx, e_dw, e_db = torch.ops.aten.native_batch_norm_backward(
            grad, x, weight.cpu(), None, None, mean.cpu(), invstd.cpu(), True, EPS,
            [True, True, True],
        )
        torch.testing.assert_close(dx.cpu(), e_dx, rtol=1e-4, atol=1e-4)
        torch.testing.assert_close(dw.cpu(), e_dw, rtol=1e-4, atol=1e-4)
        torch.testing.assert_close(db.cpu(), e_db, rtol=1e-4, atol=1e-4)


@unittest.skipUnless(RECORDED, "the real variant records no library calls")
class TheCallsAreCudnns(NoFallbackCase):
    def test_each_pass_is_one_cudnn_call(self) -> None:
        x = torch.randn(2, 3, 4, 4, device="cuda", requires_grad=True)
        weight, bias, running_mean, running_var = on_cuda(parameters(3))
        with LibraryCalls() as calls:
            out = torch.cudnn_batch_norm(
                x, weight, bias, running_mean, running_var, True, MOMENTUM, EPS
            )[0]
            out.sum().backward()
            torch.cudnn_batch_norm(
                x.detach(), weight, bias, running_mean, running_var, False, MOMENTUM, EPS
            )
        self.assertEqual(
            calls.made,
            {
                "cudnnBatchNormalizationForwardTrainingEx": 1,
                "cudnnBatchNormalizationBackwardEx": 1,
                "cudnnBatchNormalizationForwardInference": 1,
            },
        )


class BadInput(NoFallbackCase):
    def test_stock_checks_and_messages(self) -> None:
        x = torch.randn(2, 3, 4, 4, device="cuda")
        weight, bias, running_mean, running_var = on_cuda(parameters(3))
        with self.assertRaisesRegex(RuntimeError, "argument #3 'bias' to be non-null"):
            torch.cudnn_batch_norm(x, weight, None, None, None, True, MOMENTUM, EPS)
        with self.assertRaisesRegex(RuntimeError, "argument #4 'running_mean' to be non-null"):
            torch.cudnn_batch_norm(x, weight, bias, None, None, False, MOMENTUM, EPS)
        with self.assertRaisesRegex(RuntimeError, "argument #1 'input' to have the same type"):
            torch.cudnn_batch_norm(
                x.double(), weight, bias, running_mean, running_var, True, MOMENTUM, EPS
            )
        with self.assertRaisesRegex(RuntimeError, "'weight' to have scalar type Float"):
            torch.cudnn_batch_norm(
                x.half(), weight.half(), bias.half(), None, None, True, MOMENTUM, EPS
            )
        with self.assertRaisesRegex(RuntimeError, "to have 3 elements"):
            torch.cudnn_batch_norm(
                x, weight[:2], bias, running_mean, running_var, True, MOMENTUM, EPS
            )
        with self.assertRaisesRegex(RuntimeError, "non-contiguous tensor for argument #2 'weight'"):
            torch.cudnn_batch_norm(
                x, torch.randn(3, 2, device="cuda")[:, 0], bias, None, None, True, MOMENTUM, EPS
            )
        with self.assertRaisesRegex(RuntimeError, "contiguous in its suggested memory format"):
            torch.cudnn_batch_norm(
                x.transpose(2, 3), weight, bias, None, None, True, MOMENTUM, EPS
            )
        with self.assertRaisesRegex(RuntimeError, "dimension"):
            torch.cudnn_batch_norm(
                torch.randn(3, device="cuda"), weight, bias, None, None, True, MOMENTUM, EPS
            )

    def test_what_cudnn_does_not_take_says_what_to_do(self) -> None:
        weight, bias, _, _ = on_cuda(parameters(3))
        x = torch.ones(2, 3, 2, 2, dtype=torch.int32, device="cuda")
        with self.assertRaisesRegex(RuntimeError, "float, double, half and bfloat16 tensors, not"):
            torch.cudnn_batch_norm(
                x, weight.int(), bias.int(), None, None, True, MOMENTUM, EPS
            )
        bf16 = torch.randn(2, 3, 2, 2, device="cuda", dtype=torch.bfloat16)
        with self.assertRaisesRegex(RuntimeError, "bfloat16 data with float weight"):
            torch.cudnn_batch_norm(
                bf16, weight.bfloat16(), bias.bfloat16(), None, None, True, MOMENTUM, EPS
            )
        with self.assertRaisesRegex(RuntimeError, "epsilon must be >= 0"):
            torch.cudnn_batch_norm(
                torch.randn(2, 3, 2, 2, device="cuda"), weight, bias, None, None, True, 0.1, -1.0
            )
        with self.assertRaisesRegex(RuntimeError, "dimension of size 0"):
            torch.cudnn_batch_norm(
                torch.randn(0, 3, 2, 2, device="cuda"), weight, bias, None, None, True, 0.1, EPS
            )


if __name__ == "__main__":
    unittest.main()
