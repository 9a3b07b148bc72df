"""cuDNN's grid sampler on the CUDA key: torch.cudnn_grid_sampler and its backward are cuDNN
plans (cudnnSpatialTfSamplerForward and Backward) and agree with the CPU's F.grid_sample
for what stock hands cuDNN: bilinear, zero padding, align_corners=True, grid points inside,
on the border and outside the input.

On the simulated variant the plan runs on the host with cuDNN's semantics (the grid's -1
and 1 the centres of the edge pixels, the input through its strides), so a wrong
coordinate convention or layout fails here. Everything runs with TORCH_CUDA_FALLBACK=error.
"""

from __future__ import annotations

import unittest

import torch
import torch.nn.functional as F
from library_calls import RECORDED, LibraryCalls
from no_fallback import NoFallbackCase


def expected_sample(x: torch.Tensor, grid: torch.Tensor) -> torch.Tensor:
    return F.grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=True)


def grid_of(n: int, h: int, w: int, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """Points mostly inside [-1, 1], some beyond it (zero padding), and the corners."""
    grid = torch.rand(n, h, w, 2, dtype=dtype) * 2.6 - 1.3
    grid[:, 0, 0] = torch.tensor([-1.0, -1.0], dtype=dtype)
    grid[:, -1, -1] = torch.tensor([1.0, 1.0], dtype=dtype)
    return grid


class AgreesWithTheCpu(NoFallbackCase):
    def test_forward_and_backward(self) -> None:
        for layout in (torch.contiguous_format, torch.channels_last):
            with self.subTest(layout=layout):
                x = torch.randn(2, 3, 5, 7, dtype=torch.float64).contiguous(memory_format=layout)
                grid, grad = grid_of(2, 4, 6), torch.randn(2, 3, 4, 6, dtype=torch.float64)
                xg, gg = x.cuda().requires_grad_(), grid.cuda().requires_grad_()
                out = torch.cudnn_grid_sampler(xg, gg)
                out.backward(grad.cuda())
                xc, gc = x.clone().requires_grad_(), grid.clone().requires_grad_()
                expected = expected_sample(xc, gc)
                expected.backward(grad)
                self.assertEqual(out.device.type, "cuda")
                self.assertTrue(out.is_contiguous())
                torch.testing.assert_close(out.cpu(), expected)
                torch.testing.assert_close(xg.grad.cpu(), xc.grad)
                torch.testing.assert_close(gg.grad.cpu(), gc.grad)

    def test_float_and_half(self) -> None:
        x, grid = torch.randn(1, 2, 6, 6), grid_of(1, 3, 3, torch.float32)
        expected = expected_sample(x, grid)
        got = torch.cudnn_grid_sampler(x.cuda(), grid.cuda())
        torch.testing.assert_close(got.cpu(), expected)
        got = torch.cudnn_grid_sampler(x.half().cuda(), grid.half().cuda())
        self.assertEqual(got.dtype, torch.float16)
        torch.testing.assert_close(got.cpu().float(), expected, rtol=1e-2, atol=1e-2)

    def test_points_far_outside_or_not_numbers_read_zero(self) -> None:
        x = torch.randn(1, 1, 3, 3)
        grid = torch.tensor([[[[1e30, 0.0], [float("nan"), 0.0], [-float("inf"), 0.5]]]])
        got = torch.cudnn_grid_sampler(x.cuda(), grid.cuda()).cpu()
        torch.testing.assert_close(got, torch.zeros(1, 1, 1, 3))

    def test_backward_operator_directly_with_a_broadcast_gradient(self) -> None:
        x, grid = torch.randn(1, 2, 4, 4), grid_of(1, 3, 3, torch.float32)
        grad = torch.ones(1, 1, 1, 1).expand(1, 2, 3, 3)  # zero strides: made contiguous
        dx, dgrid = torch.ops.aten.cudnn_grid_sampler_backward(x.cuda(), grid.cuda(), grad.cuda())
        xc, gc = x.clone().requires_grad_(), grid.clone().requires_grad_()
        expected_sample(xc, gc).backward(grad)
        torch.testing.assert_close(dx.cpu(), xc.grad)
        torch.testing.assert_close(dgrid.cpu(), gc.grad)


@unittest.skipUnless(RECORDED, "the real variant records no library calls")
class TheCallsAreCudnns(NoFallbackCase):
    def test_one_call_each_way(self) -> None:
        x = torch.randn(1, 2, 4, 4, device="cuda", requires_grad=True)
        grid = grid_of(1, 3, 3, torch.float32).cuda()
        with LibraryCalls() as calls:
            torch.cudnn_grid_sampler(x, grid).sum().backward()
        self.assertEqual(
            calls.made, {"cudnnSpatialTfSamplerForward": 1, "cudnnSpatialTfSamplerBackward": 1}
        )


INVALID = "Invalid arguments to cudnn_grid_sampler_forward"


class BadInput(NoFallbackCase):
    def test_stock_checks_and_messages(self) -> None:
        x = torch.randn(2, 3, 4, 4, device="cuda")
        with self.assertRaisesRegex(RuntimeError, "same batch size"):
            torch.cudnn_grid_sampler(x, torch.zeros(1, 2, 2, 2, device="cuda"))
        with self.assertRaisesRegex(RuntimeError, "to have size 2 in last dimension"):
            torch.cudnn_grid_sampler(x, torch.zeros(2, 2, 2, 3, device="cuda"))
        with self.assertRaisesRegex(RuntimeError, INVALID):
            torch.cudnn_grid_sampler(x.bfloat16(), torch.zeros(2, 2, 2, 2, device="cuda"))
        with self.assertRaisesRegex(RuntimeError, INVALID):
            torch.cudnn_grid_sampler(
                torch.randn(1, 1025, 2, 2, device="cuda"), torch.zeros(1, 2, 2, 2, device="cuda")
            )
        with self.assertRaisesRegex(RuntimeError, "to have the same type as"):
            torch.cudnn_grid_sampler(x, torch.zeros(2, 2, 2, 2, device="cuda").double())

    def test_turned_off_cudnn_is_refused(self) -> None:
        x, grid = torch.randn(1, 1, 2, 2, device="cuda"), torch.zeros(1, 1, 1, 2, device="cuda")
        with torch.backends.cudnn.flags(enabled=False):
            with self.assertRaisesRegex(RuntimeError, "Invalid arguments"):
                torch.cudnn_grid_sampler(x, grid)


if __name__ == "__main__":
    unittest.main()
