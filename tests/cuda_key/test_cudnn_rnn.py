"""cuDNN's RNNs on the CUDA key: torch._cudnn_rnn_flatten_weight, torch._cudnn_rnn and its
backward (_cudnn_rnn_backward, through autograd) are cuDNN plans (cudnnRNNForward,
cudnnRNNBackwardData_v8, cudnnRNNBackwardWeights_v8) and agree with the CPU's nn.LSTM,
nn.GRU and nn.RNN holding the same weights: outputs, final states and the gradients of
input, initial states and every weight, for each cell, one and two directions, several
layers, a projection, no biases, batch_first and packed sequences.

On the simulated variant the plans run on the host with cuDNN's cell equations, gate order
and weight space (found by the operators only through cudnnGetRNNWeightParams), so a wrong
gate, direction, sequence length or weight view fails here. Everything runs with
TORCH_CUDA_FALLBACK=error. The real executor is compiled for every configured architecture;
it has not run on a GPU."""

from __future__ import annotations

import unittest

import torch
from library_calls import RECORDED, LibraryCalls
from no_fallback import NoFallbackCase
from torch import nn

# cuDNN's modes, torch._C._cudnn.RNNMode's values
MODES = {"RNN_RELU": 0, "RNN_TANH": 1, "LSTM": 2, "GRU": 3}
INPUT, HIDDEN, SEQ, BATCH = 3, 4, 5, 3


def module(mode: str, **kwargs: object) -> nn.RNNBase:
    """A CPU module of `mode` in double."""
    if mode == "LSTM":
        made: nn.RNNBase = nn.LSTM(INPUT, HIDDEN, **kwargs)
    elif mode == "GRU":
        made = nn.GRU(INPUT, HIDDEN, **kwargs)
    else:
        made = nn.RNN(INPUT, HIDDEN, nonlinearity=mode[4:].lower(), **kwargs)
    return made.double()


def states(rnn: nn.RNNBase, batch: int) -> tuple[torch.Tensor, torch.Tensor | None]:
    layers = rnn.num_layers * (2 if rnn.bidirectional else 1)
    out = rnn.proj_size if rnn.proj_size > 0 else rnn.hidden_size
    hx = torch.randn(layers, batch, out, dtype=torch.double)
    cx = torch.randn(layers, batch, rnn.hidden_size, dtype=torch.double)
    return hx, (cx if rnn.mode == "LSTM" else None)


def leaf(t: torch.Tensor | None) -> torch.Tensor | None:
    return None if t is None else t.detach().cuda().requires_grad_()


def cudnn_run(rnn: nn.RNNBase, x: torch.Tensor, hx: torch.Tensor, cx: torch.Tensor | None,
              batch_sizes: list[int] | None = None, train: bool = True) -> tuple:
    """_cudnn_rnn over the CUDA copies of rnn's weights, flattened into one weight space:
    (output, hy, cy, cuda weights, cuda x, cuda hx, cuda cx)."""
    weights = [w.detach().cuda().requires_grad_() for w in rnn._flat_weights]
    stride0 = len(weights) // (rnn.num_layers * (2 if rnn.bidirectional else 1))
    with torch.no_grad():
        buf = torch._cudnn_rnn_flatten_weight(
            weights, stride0, INPUT, MODES[rnn.mode], rnn.hidden_size, rnn.proj_size,
            rnn.num_layers, rnn.batch_first, rnn.bidirectional)
    gx, ghx, gcx = leaf(x), leaf(hx), leaf(cx)
    out, hy, cy, reserve, _ = torch._cudnn_rnn(
        gx, weights, stride0, buf, ghx, gcx, MODES[rnn.mode], rnn.hidden_size, rnn.proj_size,
        rnn.num_layers, rnn.batch_first, 0.0, train, rnn.bidirectional, batch_sizes or [], None)
    if not train:
        assert reserve.numel() == 0
    return out, hy, cy, weights, gx, ghx, gcx


def backward_both(cpu: tuple, gpu: tuple) -> None:
    """Backpropagates the same random gradients through both runs' outputs and states."""
    for c, g in zip(cpu, gpu, strict=True):
        if c is None or c.numel() == 0:
            continue
        grad = torch.randn_like(c)
        c.backward(grad, retain_graph=True)
        g.backward(grad.cuda(), retain_graph=True)


class CudnnRnnTestCase(NoFallbackCase):
    tf32_off = True

    def check(self, rnn: nn.RNNBase, batch_sizes: list[int] | None = None) -> None:
        """rnn on the CPU and as cuDNN plans agree, forward and backward."""
        batch = batch_sizes[0] if batch_sizes else BATCH
        if batch_sizes:
            x = torch.randn(sum(batch_sizes), INPUT, dtype=torch.double)
        elif rnn.batch_first:
            x = torch.randn(BATCH, SEQ, INPUT, dtype=torch.double)
        else:
            x = torch.randn(SEQ, BATCH, INPUT, dtype=torch.double)
        hx, cx = states(rnn, batch)
        x.requires_grad_()
        hx.requires_grad_()
        if cx is not None:
            cx.requires_grad_()
        out, hy, cy, weights, gx, ghx, gcx = cudnn_run(rnn, x, hx, cx, batch_sizes)
        state = hx if cx is None else (hx, cx)
        if batch_sizes:
            packed = nn.utils.rnn.PackedSequence(x, torch.tensor(batch_sizes))
            e_packed, e_state = rnn(packed, state)
            expected = e_packed.data
        else:
            expected, e_state = rnn(x, state)
        e_hy, e_cy = (e_state, None) if cx is None else e_state
        torch.testing.assert_close(out.cpu(), expected)
        torch.testing.assert_close(hy.cpu(), e_hy)
        if cx is not None:
            torch.testing.assert_close(cy.cpu(), e_cy)
        backward_both((expected, e_hy, e_cy), (out, hy, cy if cx is not None else None))
        torch.testing.assert_close(gx.grad.cpu(), x.grad)
        torch.testing.assert_close(ghx.grad.cpu(), hx.grad)
        if cx is not None:
            torch.testing.assert_close(gcx.grad.cpu(), cx.grad)
        for name, w, e in zip(rnn._flat_weights_names, weights, rnn._flat_weights, strict=True):
            with self.subTest(weight=name):
                torch.testing.assert_close(w.grad.cpu(), e.grad)


class AgreesWithTheCpu(CudnnRnnTestCase):
    def test_each_mode_directions_and_layers(self) -> None:
        for mode in MODES:
            for bidirectional in (False, True):
                for layers in (1, 2):
                    with self.subTest(mode=mode, bidirectional=bidirectional, layers=layers):
                        self.check(module(mode, num_layers=layers, bidirectional=bidirectional))

    def test_lstm_with_projection(self) -> None:
        for bias in (True, False):
            with self.subTest(bias=bias):
                self.check(module("LSTM", num_layers=2, bidirectional=True, proj_size=2, bias=bias))

    def test_without_biases(self) -> None:
        for mode in ("GRU", "RNN_TANH"):
            with self.subTest(mode=mode):
                self.check(module(mode, num_layers=2, bias=False))

    def test_batch_first(self) -> None:
        self.check(module("LSTM", batch_first=True, bidirectional=True))

    def test_packed_sequences_of_different_lengths(self) -> None:
        # lengths 5, 3, 2: the reverse direction starts each sequence at its own last step
        for mode in ("LSTM", "GRU"):
            with self.subTest(mode=mode):
                rnn = module(mode, num_layers=2, bidirectional=True)
                self.check(rnn, batch_sizes=[3, 3, 2, 1, 1])

    def test_inference_keeps_no_reserve(self) -> None:
        rnn = module("LSTM", num_layers=2)
        x = torch.randn(SEQ, BATCH, INPUT, dtype=torch.double)
        hx, cx = states(rnn, BATCH)
        out, _, cy, *_ = cudnn_run(rnn, x, hx, cx, train=False)
        expected, (_, e_cy) = rnn(x, (hx, cx))
        torch.testing.assert_close(out.detach().cpu(), expected.detach())
        torch.testing.assert_close(cy.detach().cpu(), e_cy.detach())

    def test_float_and_half(self) -> None:
        rnn = module("LSTM", num_layers=2, bidirectional=True)
        x = torch.randn(SEQ, BATCH, INPUT, dtype=torch.double)
        hx, cx = states(rnn, BATCH)
        expected, _ = rnn(x, (hx, cx))
        for dtype, tol in ((torch.float32, 1e-5), (torch.float16, 2e-2)):
            with self.subTest(dtype=dtype):
                low = module("LSTM", num_layers=2, bidirectional=True)
                low.load_state_dict(rnn.state_dict())
                low = low.to(dtype)
                out, *_ = cudnn_run(low, x.to(dtype), hx.to(dtype), cx.to(dtype))
                self.assertEqual(out.dtype, dtype)
                torch.testing.assert_close(out.detach().cpu().double(), expected.detach(),
                                           atol=tol, rtol=tol)


class Dropout(CudnnRnnTestCase):
    def run_with_dropout(self, p: float, seed: int) -> tuple:
        """A two-layer LSTM trained a step with dropout p from a state seeded with seed."""
        state = torch._cudnn_init_dropout_state(p, True, seed, device="cuda") if p > 0 else None
        torch.manual_seed(1)
        rnn = module("LSTM", num_layers=2)
        x = torch.randn(SEQ, BATCH, INPUT, dtype=torch.double)
        hx, cx = states(rnn, BATCH)
        weights = [w.detach().cuda() for w in rnn._flat_weights]
        gx = x.cuda().requires_grad_()
        out, *_ = torch._cudnn_rnn(gx, weights, 4, None, hx.cuda(), cx.cuda(), 2, HIDDEN, 0, 2,
                                   False, p, True, False, [], state)
        out.sum().backward()
        return rnn, x, hx, cx, out, gx.grad

    def test_the_same_state_seed_draws_the_same_masks(self) -> None:
        first = self.run_with_dropout(0.5, seed=7)
        again = self.run_with_dropout(0.5, seed=7)
        plain = self.run_with_dropout(0.0, seed=7)
        torch.testing.assert_close(first[4], again[4])
        self.assertFalse(torch.equal(first[4], plain[4]))

    def test_dropping_everything_cuts_the_second_layer_off(self) -> None:
        rnn, _, hx, cx, out, grad = self.run_with_dropout(1.0, seed=3)
        # the second layer sees zeros: its output is the CPU's second layer over zeros
        second = nn.LSTM(HIDDEN, HIDDEN).double()
        with torch.no_grad():
            for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
                getattr(second, f"{name}_l0").copy_(getattr(rnn, f"{name}_l1"))
            zeros = torch.zeros(SEQ, BATCH, HIDDEN, dtype=torch.double)
            expected, _ = second(zeros, (hx[1:], cx[1:]))
        torch.testing.assert_close(out.detach().cpu(), expected)
        self.assertEqual(grad.abs().max().item(), 0.0)


class Refusals(CudnnRnnTestCase):
    def gru(self, x: torch.Tensor, hx: torch.Tensor, cx: torch.Tensor | None = None,
            mode: int = MODES["GRU"], batch_sizes: tuple[int, ...] = ()) -> None:
        """_cudnn_rnn of a one-layer GRU's weights over x."""
        weights = [w.detach().cuda() for w in module("GRU")._flat_weights]
        torch._cudnn_rnn(x, weights, 4, None, hx, cx, mode, HIDDEN, 0, 1, False, 0.0, True, False,
                         list(batch_sizes), None)

    def test_cx_for_a_gru(self) -> None:
        x, hx = torch.randn(SEQ, BATCH, INPUT).double(), torch.zeros(1, BATCH, HIDDEN).double()
        with self.assertRaisesRegex(RuntimeError, "illegal defined cx for non-LSTM RNN"):
            self.gru(x.cuda(), hx.cuda(), hx.cuda())

    def test_wrong_hidden_size(self) -> None:
        x, hx = torch.randn(SEQ, BATCH, INPUT).double(), torch.zeros(1, BATCH + 1, HIDDEN).double()
        with self.assertRaisesRegex(RuntimeError, "Expected hidden size"):
            self.gru(x.cuda(), hx.cuda())

    def test_unknown_mode_and_mixed_types(self) -> None:
        x, hx = torch.randn(SEQ, BATCH, INPUT).double(), torch.zeros(1, BATCH, HIDDEN).double()
        with self.assertRaisesRegex(RuntimeError, "unrecognized cuDNN RNN mode 7"):
            self.gru(x.cuda(), hx.cuda(), mode=7)
        with self.assertRaisesRegex(RuntimeError, "not the same dtype"):
            self.gru(x.float().cuda(), hx.cuda())

    def test_dropout_without_a_state(self) -> None:
        x, hx = torch.randn(SEQ, BATCH, INPUT).double(), torch.zeros(2, BATCH, HIDDEN).double()
        weights = [w.detach().cuda() for w in module("GRU", num_layers=2)._flat_weights]
        with self.assertRaisesRegex(RuntimeError, "needs a dropout state"):
            torch._cudnn_rnn(x.cuda(), weights, 4, None, hx.cuda(), None, 3, HIDDEN, 0, 2, False,
                             0.5, True, False, [], None)
        with self.assertRaisesRegex(RuntimeError, "dropout > 0"):
            torch._cudnn_init_dropout_state(0.0, True, 1, device="cuda")

    def test_packed_rows_must_match_the_batch_sizes(self) -> None:
        x, hx = torch.randn(3, INPUT).double(), torch.zeros(1, 2, HIDDEN).double()
        with self.assertRaisesRegex(RuntimeError, "Expected input size"):
            self.gru(x.cuda(), hx.cuda(), batch_sizes=(2, 2))

    def test_unsorted_packed_lengths(self) -> None:
        x, hx = torch.randn(4, INPUT).double(), torch.zeros(1, 1, HIDDEN).double()
        with self.assertRaisesRegex(RuntimeError, "non-increasing"):
            self.gru(x.cuda(), hx.cuda(), batch_sizes=(1, 3))


@unittest.skipUnless(RECORDED, "the real variant records no calls (tests/gpu covers its executor)")
class LibraryCallsMade(CudnnRnnTestCase):
    def test_forward_and_backward_calls(self) -> None:
        rnn = module("LSTM")
        x = torch.randn(SEQ, BATCH, INPUT, dtype=torch.double)
        hx, cx = states(rnn, BATCH)
        with LibraryCalls() as calls:
            out, *_ = cudnn_run(rnn, x, hx, cx)
            out.sum().backward()
        self.assertEqual(calls.made, {"cudnnRNNForward": 1, "cudnnRNNBackwardData_v8": 1,
                                      "cudnnRNNBackwardWeights_v8": 1})


if __name__ == "__main__":
    unittest.main()
