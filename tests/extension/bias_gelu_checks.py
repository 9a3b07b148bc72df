"""The example extension's behaviour, whichever way it was built (Bazel, JIT, setuptools):
each test module loads its build and runs these cases against stock torch on the CPU,
with TORCH_CUDA_FALLBACK=error so that nothing reaches the CPU behind the test's back."""

from __future__ import annotations

import unittest

import bias_gelu
import torch

import torch_cuda

FLOATING = (torch.float32, torch.float64, torch.bfloat16, torch.float16)


def reference(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.gelu(x.double() + bias.double()).to(x.dtype)


def tolerance(dtype: torch.dtype) -> dict[str, float]:
    return {"rtol": 1e-2, "atol": 1e-2} if dtype in (torch.bfloat16, torch.float16) else {}


class BiasGeluChecks(unittest.TestCase):
    """Mixed into a test module's TestCase, after it has loaded its build."""

    def setUp(self) -> None:
        torch.manual_seed(0)
        torch_cuda.set_fallback_policy("error")

    def tearDown(self) -> None:
        torch_cuda.set_fallback_policy("allow")

    def test_forward_agrees_with_stock_gelu_in_every_floating_dtype(self) -> None:
        for dtype in FLOATING:
            x, bias = torch.randn(3, 4, 7).to(dtype), torch.randn(7).to(dtype)
            y = bias_gelu.bias_gelu(x.cuda(), bias.cuda())
            self.assertEqual((y.device.type, y.dtype, y.shape), ("cuda", dtype, x.shape))
            torch.testing.assert_close(y.cpu(), reference(x, bias), **tolerance(dtype))

    def test_strided_input_and_a_second_device(self) -> None:
        x = torch.randn(6, 5).t()  # not contiguous
        bias = torch.randn(6)
        y = bias_gelu.bias_gelu(x.to("cuda:1"), bias.to("cuda:1"))
        self.assertEqual(y.device, torch.device("cuda:1"))
        self.assertEqual(torch.cuda.current_device(), 0)
        torch.testing.assert_close(y.cpu(), reference(x, bias))

    def test_runs_in_order_on_the_current_stream(self) -> None:
        x, bias = torch.randn(1024, 64, device="cuda"), torch.randn(64, device="cuda")
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            y = bias_gelu.bias_gelu(x, bias)
            z = y * 2  # queued after the extension's kernel on the same stream
        side.synchronize()
        torch.testing.assert_close(z.cpu(), 2 * reference(x.cpu(), bias.cpu()))

    def test_gradients_agree_with_stock_autograd(self) -> None:
        x = torch.randn(2, 3, 5, dtype=torch.float64, requires_grad=True)
        bias = torch.randn(5, dtype=torch.float64, requires_grad=True)
        xc = x.detach().cuda().requires_grad_()
        bc = bias.detach().cuda().requires_grad_()
        grad = torch.randn(2, 3, 5, dtype=torch.float64)
        bias_gelu.bias_gelu(xc, bc).backward(grad.cuda())
        torch.nn.functional.gelu(x + bias).backward(grad)
        torch.testing.assert_close(xc.grad.cpu(), x.grad)
        torch.testing.assert_close(bc.grad.cpu(), bias.grad)
        self.assertTrue(torch.autograd.gradcheck(bias_gelu.bias_gelu, (xc[:1, :2], bc)))

    def test_bad_inputs_are_refused_with_stock_errors(self) -> None:
        x = torch.randn(4, 5, device="cuda")
        with self.assertRaisesRegex(RuntimeError, r"bias must be 1-d with x's last dimension \(5"):
            bias_gelu.bias_gelu(x, torch.randn(4, device="cuda"))
        with self.assertRaisesRegex(RuntimeError, "one floating dtype"):
            bias_gelu.bias_gelu(x, torch.randn(5, device="cuda", dtype=torch.float64))
        with self.assertRaisesRegex(RuntimeError, "Expected all tensors to be on the same device"):
            bias_gelu.bias_gelu(x, torch.randn(5, device="cuda:1"))
        # Registered for CUDA only: the dispatcher names the missing backend.
        with self.assertRaisesRegex(NotImplementedError, "bias_gelu_ext::bias_gelu.*'CPU' backend"):
            bias_gelu.bias_gelu(torch.randn(4, 5), torch.randn(5))

    def test_an_empty_input_gives_an_empty_output(self) -> None:
        y = bias_gelu.bias_gelu(torch.empty(0, 5, device="cuda"), torch.randn(5, device="cuda"))
        self.assertEqual(tuple(y.shape), (0, 5))
