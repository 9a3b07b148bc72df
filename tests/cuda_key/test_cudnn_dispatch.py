"""torch chooses cuDNN on the CUDA key as a CUDA build of stock with cuDNN does: the CUDA
hooks report cuDNN compiled in (torch._C._cudnn and _has_cudnn from the cudnn_module ledger
entry), so torch.backends.cudnn answers as stock's, and F.conv*, their backward, batch norm,
grid_sample and nn.LSTM/GRU/RNN (through the RNN stubs' CUDA slots) take the cuDNN
operators, agreeing with the CPU. torch.backends.cudnn.flags(enabled=False) turns them back
to torch's own kernels. Everything runs with TORCH_CUDA_FALLBACK=error.

Which library calls an operator made is recorded by the simulated variant only; the real
executors are tested without torch in tests/gpu."""

from __future__ import annotations

import os
import re
import unittest
import warnings
from collections.abc import Callable
from pathlib import Path

import torch
import torch.nn.functional as F
from library_calls import RECORDED, LibraryCalls
from no_fallback import NoFallbackCase
from torch import nn


def pinned_cudnn_version() -> int:
    """The pinned nvidia-cudnn-cu13 in CUDNN_VERSION's encoding, from the wheels' lock."""
    lock = Path(os.environ["WHEELS_LOCK"]).read_text()
    found = re.search(r"^nvidia-cudnn-cu13==(\d+)\.(\d+)\.(\d+)", lock, re.MULTILINE)
    assert found, "no nvidia-cudnn-cu13 pin in the wheels' lock"
    major, minor, patch = (int(g) for g in found.groups())
    return major * 10000 + minor * 100 + patch


def cudnn_calls(calls: dict[str, int]) -> set[str]:
    return {name for name in calls if name.startswith("cudnn")}


class DispatchTestCase(NoFallbackCase):
    tf32_off = True


class BackendsCudnnAnswersAsStock(DispatchTestCase):
    def test_available_with_the_pinned_version(self) -> None:
        self.assertTrue(torch.backends.cudnn.is_available())
        self.assertTrue(torch._C._has_cudnn)
        self.assertEqual(torch.backends.cudnn.version(), pinned_cudnn_version())
        major, minor, _ = torch._C._cudnn.getCompileVersion()
        self.assertEqual(major * 10000 + minor * 100, pinned_cudnn_version() // 100 * 100)
        self.assertEqual(int(torch._C._cudnn.RNNMode.gru), 3)

    def test_acceptable_without_warning(self) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            self.assertTrue(torch.backends.cudnn.is_acceptable(torch.ones(1, device="cuda")))
        self.assertFalse(torch.backends.cudnn.is_acceptable(torch.ones(1)))
        self.assertTrue(torch._use_cudnn_rnn_flatten_weight())


class ConvolutionTakesCudnn(DispatchTestCase):
    def run_both(
        self, op: Callable[..., torch.Tensor], x: torch.Tensor, w: torch.Tensor, **kwargs: object
    ) -> dict[str, int]:
        """op forward and backward on the CPU and on the device; their results agree."""
        xc, wc = x.clone().requires_grad_(), w.clone().requires_grad_()
        xd, wd = x.cuda().requires_grad_(), w.cuda().requires_grad_()
        with LibraryCalls() as calls:
            out = op(xd, wd, **kwargs)
            out.square().sum().backward()
        expected = op(xc, wc, **kwargs)
        expected.square().sum().backward()
        # float sums in another order than the CPU's
        tol = {} if x.dtype == torch.double else {"rtol": 1e-4, "atol": 1e-4}
        torch.testing.assert_close(out.detach().cpu(), expected.detach(), **tol)
        torch.testing.assert_close(xd.grad.cpu(), xc.grad, **tol)
        torch.testing.assert_close(wd.grad.cpu(), wc.grad, **tol)
        return calls.made

    def test_conv_and_backward(self) -> None:
        cases = [
            (F.conv1d, (2, 4, 9), (6, 2, 3), {"padding": 1, "stride": 2, "groups": 2}),
            (F.conv2d, (2, 3, 7, 6), (5, 3, 3, 2), {"padding": (1, 0), "dilation": (2, 1)}),
            (F.conv3d, (1, 2, 4, 5, 3), (4, 2, 2, 3, 1), {"stride": (1, 2, 1)}),
        ]
        for op, x_size, w_size, kwargs in cases:
            with self.subTest(op=op.__name__):
                made = self.run_both(op, torch.randn(x_size).double(), torch.randn(w_size).double(),
                                     **kwargs)
                if RECORDED:
                    graphs = {f"cudnn_frontend::conv_{op}" for op in ("fprop", "dgrad", "wgrad")}
                    self.assertEqual(cudnn_calls(made) & graphs, graphs)

    def test_channels_last_and_transposed(self) -> None:
        x = torch.randn(2, 4, 5, 5).contiguous(memory_format=torch.channels_last)
        self.run_both(F.conv2d, x, torch.randn(6, 4, 3, 3), padding=1)
        made = self.run_both(F.conv_transpose2d, torch.randn(2, 4, 5, 5).double(),
                             torch.randn(4, 3, 3, 3).double(), stride=2, output_padding=1)
        if RECORDED:
            self.assertIn("cudnn_frontend::conv_wgrad", made)

    def test_turned_off_it_runs_torch_s_own(self) -> None:
        with torch.backends.cudnn.flags(enabled=False):
            made = self.run_both(F.conv2d, torch.randn(1, 2, 5, 5).double(),
                                 torch.randn(3, 2, 3, 3).double())
        self.assertEqual(cudnn_calls(made), set())


class NormalisationAndSamplingTakeCudnn(DispatchTestCase):
    def test_batch_norm_training(self) -> None:
        bn = nn.BatchNorm2d(3).double()
        x = torch.randn(4, 3, 5, 5, dtype=torch.double)
        device_bn = nn.BatchNorm2d(3).double().cuda()
        with LibraryCalls() as calls:
            out = device_bn(x.cuda())
        torch.testing.assert_close(out.cpu(), bn(x))
        torch.testing.assert_close(device_bn.running_var.cpu(), bn.running_var)
        if RECORDED:
            self.assertIn("cudnnBatchNormalizationForwardTrainingEx", calls.made)

    def test_grid_sample(self) -> None:
        x, grid = torch.randn(1, 2, 4, 4), torch.rand(1, 3, 3, 2) * 2 - 1
        with LibraryCalls() as calls:
            out = F.grid_sample(x.cuda(), grid.cuda(), align_corners=True)
        torch.testing.assert_close(out.cpu(), F.grid_sample(x, grid, align_corners=True))
        if RECORDED:
            self.assertIn("cudnnSpatialTfSamplerForward", calls.made)


class RecurrentModulesTakeCudnn(DispatchTestCase):
    def test_lstm_module_trains_a_step(self) -> None:
        cpu = nn.LSTM(3, 4, num_layers=2, bidirectional=True).double()
        device = nn.LSTM(3, 4, num_layers=2, bidirectional=True).double()
        device.load_state_dict(cpu.state_dict())
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no "compiled without cuDNN", no compaction
            device = device.cuda()
            x = torch.randn(5, 2, 3, dtype=torch.double)
            with LibraryCalls() as calls:
                out, (hy, cy) = device(x.cuda())
                (out.square().sum() + hy.sum() + cy.sum()).backward()
        # flatten_parameters left every weight a view into one weight space
        self.assertEqual(len({w.untyped_storage().data_ptr() for w in device._flat_weights}), 1)
        e_out, (e_hy, e_cy) = cpu(x)
        (e_out.square().sum() + e_hy.sum() + e_cy.sum()).backward()
        torch.testing.assert_close(out.detach().cpu(), e_out.detach())
        for (name, p), e in zip(device.named_parameters(), cpu.parameters(), strict=True):
            with self.subTest(parameter=name):
                torch.testing.assert_close(p.grad.cpu(), e.grad)
        if RECORDED:
            self.assertEqual(calls.made.get("cudnnRNNForward"), 1)
            self.assertEqual(calls.made.get("cudnnRNNBackwardWeights_v8"), 1)

    def test_gru_over_a_packed_batch(self) -> None:
        cpu = nn.GRU(3, 4, batch_first=True).double()
        device = nn.GRU(3, 4, batch_first=True).double()
        device.load_state_dict(cpu.state_dict())
        device = device.cuda()
        x, lengths = torch.randn(3, 5, 3, dtype=torch.double), torch.tensor([2, 5, 3])
        packed = nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=True,
                                                   enforce_sorted=False)
        out, hy = device(packed.to("cuda"))
        e_out, e_hy = cpu(packed)
        torch.testing.assert_close(out.data.cpu(), e_out.data)
        torch.testing.assert_close(hy.cpu(), e_hy)

    def test_dropout_follows_the_cuda_seed(self) -> None:
        lstm = nn.LSTM(3, 4, num_layers=2, dropout=0.5).cuda()
        x = torch.randn(5, 2, 3, device="cuda")
        torch.manual_seed(5)
        first, _ = lstm(x)
        second, _ = lstm(x)
        torch.manual_seed(5)
        again, _ = lstm(x)
        torch.testing.assert_close(first, again)
        self.assertFalse(torch.equal(first, second))
        lstm.eval()
        torch.testing.assert_close(lstm(x)[0], lstm(x)[0])


if __name__ == "__main__":
    unittest.main()
