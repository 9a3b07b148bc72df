"""cuDNN's CTC loss on the CUDA key: torch._use_cudnn_ctc_loss answers as stock's CUDA build
with cuDNN does, so F.ctc_loss with float log-probabilities, int32 targets on the CPU, every
input as long as the log-probabilities and targets shorter than 256 runs _cudnn_ctc_loss
(cudnnCTCLoss), and its .Tensor overload runs cudnnCTCLoss_v8 with the lengths on the GPU.
Costs and gradients agree with the CPU's ctc_loss.

On the simulated variant the plan runs on the host with cuDNN's semantics (a softmax over
the alphabet, label 0 the blank, the activations through their strides, samples that cannot
align costing infinity with a zero gradient), so a wrong layout or label offset fails here.
Everything runs with TORCH_CUDA_FALLBACK=error.
"""

from __future__ import annotations

import math
import unittest

import torch
import torch.nn.functional as F
from library_calls import RECORDED, LibraryCalls
from no_fallback import NoFallbackCase


def problem(
    steps: int = 12, batch: int = 4, alphabet: int = 6, target: int = 4
) -> tuple[torch.Tensor, torch.Tensor, list[int], list[int]]:
    """Log-probabilities (T, N, A), int32 targets concatenated, input and target lengths."""
    log_probs = torch.randn(steps, batch, alphabet).log_softmax(2)
    target_lengths = [max(1, target - n % 3) for n in range(batch)]
    targets = torch.randint(1, alphabet, (sum(target_lengths),), dtype=torch.int32)
    return log_probs, targets, [steps] * batch, target_lengths


class ChoosesCudnnAsStock(NoFallbackCase):
    def test_the_conditions(self) -> None:
        log_probs, targets, il, tl = problem()
        lp = log_probs.cuda()
        self.assertTrue(torch._use_cudnn_ctc_loss(lp, targets, il, tl, 0))
        refused = {
            "blank 1": (lp, targets, il, tl, 1),
            "long targets": (lp, targets.long(), il, tl, 0),
            "targets on the GPU": (lp, targets.cuda(), il, tl, 0),
            "a shorter input": (lp, targets, [il[0] - 1, *il[1:]], tl, 0),
            "a target of 256": (lp, targets, il, [256, *tl[1:]], 0),
            "double": (lp.double(), targets, il, tl, 0),
            "2-d targets": (lp, targets[:8].view(4, 2), il, [2] * 4, 0),
        }
        for name, args in refused.items():
            with self.subTest(name):
                self.assertFalse(torch._use_cudnn_ctc_loss(*args))
        with torch.backends.cudnn.flags(enabled=False):
            self.assertFalse(torch._use_cudnn_ctc_loss(lp, targets, il, tl, 0))

    def test_the_tensor_overload(self) -> None:
        log_probs, targets, il, tl = problem()
        lp = log_probs.cuda()
        as_int = torch.tensor(il, dtype=torch.int32), torch.tensor(tl, dtype=torch.int32)
        self.assertTrue(torch._use_cudnn_ctc_loss(lp, targets.cuda(), *as_int, 0))
        as_long = (t.long() for t in as_int)
        self.assertFalse(torch._use_cudnn_ctc_loss(lp, targets.cuda(), *as_long, 0))
        longer = torch.tensor([il[0] + 1, *tl[1:]], dtype=torch.int32)
        self.assertFalse(torch._use_cudnn_ctc_loss(lp, targets.cuda(), as_int[0], longer, 0))


class AgreesWithTheCpu(NoFallbackCase):
    def test_ctc_loss_forward_and_backward(self) -> None:
        log_probs, targets, il, tl = problem()
        for reduction in ("none", "mean", "sum"):
            with self.subTest(reduction=reduction):
                lp = log_probs.cuda().requires_grad_()
                with LibraryCalls() as calls:
                    loss = F.ctc_loss(lp, targets, il, tl, reduction=reduction)
                    loss.sum().backward()
                if RECORDED:
                    self.assertEqual(calls.made.get("cudnnCTCLoss"), 1)
                cpu = log_probs.clone().requires_grad_()
                expected = F.ctc_loss(cpu, targets.long(), il, tl, reduction=reduction)
                expected.sum().backward()
                torch.testing.assert_close(loss.cpu(), expected, rtol=1e-5, atol=1e-5)
                torch.testing.assert_close(lp.grad.cpu(), cpu.grad, rtol=1e-4, atol=1e-5)

    def test_stocks_cudnn_case(self) -> None:
        # test_nn's test_ctc_loss_cudnn: 16 samples, 30 steps, 101 labels, targets of 15,
        # the gradient of a random upstream gradient.
        batch, steps, alphabet, length = 16, 30, 101, 15
        targets = torch.randint(1, alphabet, (batch * length,), dtype=torch.int32)
        log_probs = torch.randn(steps, batch, alphabet).log_softmax(2)
        grad_out = torch.randn(batch)
        il, tl = [steps] * batch, [length] * batch
        lp = log_probs.cuda().requires_grad_()
        self.assertTrue(torch._use_cudnn_ctc_loss(lp, targets, il, tl, 0))
        loss = F.ctc_loss(lp, targets, il, tl, reduction="none")
        (grad,) = torch.autograd.grad(loss, lp, grad_out.cuda())
        cpu = log_probs.clone().requires_grad_()
        expected = F.ctc_loss(cpu, targets.long(), il, tl, reduction="none")
        (expected_grad,) = torch.autograd.grad(expected, cpu, grad_out)
        torch.testing.assert_close(loss.cpu(), expected, rtol=1e-4, atol=1e-4)
        torch.testing.assert_close(grad.cpu(), expected_grad, rtol=1e-4, atol=1e-4)

    def test_padded_targets(self) -> None:
        # Targets past the lengths' sum are not read, as cuDNN reads them.
        log_probs, targets, il, tl = problem()
        padded = torch.cat([targets, torch.zeros(5, dtype=torch.int32)])
        costs, _ = torch._cudnn_ctc_loss(log_probs.cuda(), padded, il, tl, 0, True, False)
        expected = F.ctc_loss(log_probs, targets.long(), il, tl, reduction="none")
        torch.testing.assert_close(costs.cpu(), expected, rtol=1e-5, atol=1e-5)

    def test_batch_major_log_probs(self) -> None:
        log_probs, targets, il, tl = problem()
        strided = log_probs.transpose(0, 1).contiguous().cuda().transpose(0, 1)
        self.assertFalse(strided.is_contiguous())
        costs, grad = torch._cudnn_ctc_loss(strided, targets, il, tl, 0, True, False)
        expected = F.ctc_loss(log_probs, targets.long(), il, tl, reduction="none")
        torch.testing.assert_close(costs.cpu(), expected, rtol=1e-5, atol=1e-5)
        self.assertTrue(grad.is_contiguous())

    def test_activations_are_normalised_by_softmax(self) -> None:
        # cuDNN's softmax normalisation: unnormalised activations cost what their
        # log-softmax does.
        log_probs, targets, il, tl = problem()
        activations = log_probs * 1.7 + 0.3
        costs, _ = torch._cudnn_ctc_loss(activations.cuda(), targets, il, tl, 0, True, False)
        expected = F.ctc_loss(activations.log_softmax(2), targets.long(), il, tl, reduction="none")
        torch.testing.assert_close(costs.cpu(), expected, rtol=1e-5, atol=1e-5)

    def test_device_lengths(self) -> None:
        log_probs, targets, il, tl = problem()
        il_t, tl_t = torch.tensor(il, dtype=torch.int32), torch.tensor(tl, dtype=torch.int32)
        cpu = log_probs.clone().requires_grad_()
        expected = F.ctc_loss(cpu, targets.long(), il, tl, reduction="none")
        expected.sum().backward()
        for where in ("cuda", "cpu"):
            args = (targets.to(where), il_t.to(where), tl_t.to(where))
            with self.subTest(lengths=where), LibraryCalls() as calls:
                costs, grad = torch._cudnn_ctc_loss(log_probs.cuda(), *args, 0, True, False)
                torch.testing.assert_close(costs.cpu(), expected.detach(), rtol=1e-5, atol=1e-5)
                torch.testing.assert_close(grad.cpu(), cpu.grad, rtol=1e-4, atol=1e-5)
            if RECORDED:
                self.assertEqual(calls.made.get("cudnnCTCLoss_v8"), 1)

    def test_a_sample_that_cannot_align(self) -> None:
        # Three repeats of one label need five steps; four are given.
        log_probs = torch.randn(4, 2, 3).log_softmax(2)
        targets = torch.tensor([1, 2, 1, 1, 1], dtype=torch.int32)
        lengths = [4, 4], [2, 3]
        costs, grad = torch._cudnn_ctc_loss(log_probs.cuda(), targets, *lengths, 0, True, False)
        self.assertTrue(math.isfinite(costs[0].item()))
        self.assertEqual(costs[1].item(), math.inf)
        self.assertEqual(grad[:, 1].abs().sum().item(), 0.0)
        # torch 2.13's ctc_loss leaves cuDNN's infinite cost in place even with
        # zero_infinity (pytorch#176910), as stock's CUDA build does; the gradient is zero.
        lp = log_probs.cuda().requires_grad_()
        loss = F.ctc_loss(lp, targets, *lengths, reduction="none", zero_infinity=True)
        loss.backward(torch.ones(2, device="cuda"))
        self.assertTrue(torch.isfinite(lp.grad).all())
        self.assertEqual(lp.grad[:, 1].abs().sum().item(), 0.0)

    def test_an_empty_batch(self) -> None:
        empty = torch.empty(5, 0, 4, device="cuda"), torch.empty(0, dtype=torch.int32)
        costs, grad = torch._cudnn_ctc_loss(*empty, [], [], 0, True, False)
        self.assertEqual(costs.shape, (0,))
        self.assertEqual(grad.shape, (5, 0, 4))


class RefusesAsStock(NoFallbackCase):
    def test_bad_operands(self) -> None:
        log_probs, targets, il, tl = problem()
        lp = log_probs.cuda()
        cases = {
            "scalar type Int": (lp, targets.long(), il, tl, 0),
            "scalar type Float": (lp.double(), targets, il, tl, 0),
            "blank must be label 0": (lp, targets, il, tl, 1),
            "input_lengths needs to have size to match batch_size": (lp, targets, il[:-1], tl, 0),
            "target_lengths needs to have size to match batch_size": (lp, targets, il, tl[:-1], 0),
        }
        for message, args in cases.items():
            with self.subTest(message), self.assertRaisesRegex(RuntimeError, message):
                torch._cudnn_ctc_loss(*args, True, False)

    def test_bad_labels(self) -> None:
        log_probs, targets, il, tl = problem(alphabet=6)
        bad = targets.clone()
        bad[0] = 6
        with self.assertRaisesRegex(RuntimeError, r"label 6 at position 0 is outside \[1, 5\]"):
            torch._cudnn_ctc_loss(log_probs.cuda(), bad, il, tl, 0, True, False)
        with self.assertRaisesRegex(RuntimeError, "add up to"):
            torch._cudnn_ctc_loss(log_probs.cuda(), targets[:-1], il, tl, 0, True, False)

    def test_bad_device_labels_fail_the_stream(self) -> None:
        log_probs, targets, il, tl = problem(alphabet=6)
        bad = targets.clone()
        bad[0] = 0
        lengths = torch.tensor(il, dtype=torch.int32), torch.tensor(tl, dtype=torch.int32)
        if not RECORDED:
            self.skipTest("the real variant hands device labels to cuDNN unchecked")
        on_gpu = (t.cuda() for t in lengths)
        torch._cudnn_ctc_loss(log_probs.cuda(), bad.cuda(), *on_gpu, 0, True, False)
        with self.assertRaisesRegex(RuntimeError, r"label 0 of sample 0"):
            torch.cuda.synchronize()


if __name__ == "__main__":
    unittest.main()
