"""The op layer's random operators, pooling, dropout, fused optimizers and recurrent cells on
the backend: natively, drawing from the device generator, agreeing with the CPU (see
test_op_layer.py)."""

from __future__ import annotations

import torch
from backend import DEVICE, main, mod
from op_layer_case import OpLayerCase, sample


class RandomAndNn(OpLayerCase):
    def test_max_pool2d_forward_indices_and_backward(self) -> None:
        f = torch.nn.functional
        cases = [{"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1},
                 {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True},
                 {"kernel_size": (2, 3), "stride": (1, 2), "dilation": (2, 1)}]
        shapes = (((2, 3, 9, 11), False), ((2, 3, 9, 11), True), ((3, 8, 7), False))
        for shape, channels_last in shapes:
            for kw in cases:
                with self.subTest(shape=shape, channels_last=channels_last, **kw):
                    x = torch.randn(shape)
                    if channels_last:
                        x = x.to(memory_format=torch.channels_last)
                    xc, xd = x.clone().requires_grad_(), x.to(DEVICE).requires_grad_()
                    yc, ic = f.max_pool2d(xc, return_indices=True, **kw)
                    yd, idx = f.max_pool2d(xd, return_indices=True, **kw)
                    grad = torch.randn_like(yc)
                    yc.backward(grad)
                    yd.backward(grad.to(DEVICE))
                    torch.testing.assert_close(yd.detach().cpu(), yc.detach())
                    torch.testing.assert_close(idx.cpu(), ic)
                    torch.testing.assert_close(xd.grad.cpu(), xc.grad)

    def test_max_pool2d_integer_inputs(self) -> None:
        f = torch.nn.functional
        for dtype in (torch.int64, torch.uint8, torch.int16):
            x = sample((2, 3, 7, 6), dtype)
            self.check(lambda t: f.max_pool2d(t, 3, 2, 1, return_indices=True), x)
            self.check(lambda t: f.max_pool2d(t, 2, ceil_mode=True), x)

    def test_random_ops_draw_from_the_device_generator(self) -> None:
        draws = {
            "uniform_": lambda t: t.uniform_(2, 3), "normal_": lambda t: t.normal_(1, 2),
            "bernoulli_": lambda t: t.bernoulli_(0.3), "exponential_": lambda t: t.exponential_(2),
            "geometric_": lambda t: t.geometric_(0.25),
            "log_normal_": lambda t: t.log_normal_(0, 0.5),
            "cauchy_": lambda t: t.cauchy_(), "random_": lambda t: t.random_(3, 10),
        }
        for name, draw in draws.items():
            with self.subTest(op=name):
                torch.manual_seed(7)
                first = draw(torch.empty(20000, device=DEVICE)).cpu()
                torch.manual_seed(7)
                again = draw(torch.empty(20000, device=DEVICE)).cpu()
                self.assertTrue(torch.equal(first, again))  # seeded: replayed
                self.assertFalse(torch.equal(first, draw(torch.empty(20000, device=DEVICE)).cpu()))
        torch.manual_seed(0)
        x = torch.empty(100000, device=DEVICE)
        self.assertAlmostEqual(x.uniform_(2, 3).mean().item(), 2.5, delta=0.01)
        self.assertGreaterEqual(x.amin().item(), 2.0)
        self.assertAlmostEqual(x.normal_(1, 2).std().item(), 2.0, delta=0.03)
        self.assertAlmostEqual(x.exponential_(2).mean().item(), 0.5, delta=0.01)
        self.assertAlmostEqual(x.bernoulli_(0.3).mean().item(), 0.3, delta=0.01)
        ints = torch.randint(3, 10, (10000,), device=DEVICE).cpu()
        self.assertEqual(sorted(ints.unique().tolist()), list(range(3, 10)))
        p = torch.tensor([0.0, 1.0, 0.0])  # a CPU p, expanded to self's shape
        drawn = torch.empty(4, 3, device=DEVICE).bernoulli_(p).cpu()
        self.assertEqual(drawn.tolist(), [[0.0, 1.0, 0.0]] * 4)
        with self.assertRaisesRegex(RuntimeError, "uniform_ expects to return a \\[from, to\\)"):
            torch.empty(3, device=DEVICE).uniform_(3, 2)
        with self.assertRaisesRegex(RuntimeError, "bernoulli_ expects p to be in \\[0, 1\\]"):
            torch.empty(3, device=DEVICE).bernoulli_(1.5)

    def test_multinomial_aminmax_and_assert_async(self) -> None:
        probs = torch.tensor([[0.1, 0.0, 0.6, 0.3], [0.0, 0.0, 1.0, 0.0]], device=DEVICE)
        drawn = torch.multinomial(probs, 20000, replacement=True).cpu()
        for category, p in enumerate([0.1, 0.0, 0.6, 0.3]):
            self.assertAlmostEqual((drawn[0] == category).float().mean().item(), p, delta=0.02)
        self.assertEqual(drawn[1].unique().tolist(), [2])  # zero-probability never drawn
        without = torch.multinomial(probs[:1], 3).cpu()[0].tolist()
        self.assertEqual(len(set(without)), 3)
        self.assertNotIn(1, without)
        torch.manual_seed(3)
        first = torch.multinomial(probs, 5, True).cpu()
        torch.manual_seed(3)
        self.assertTrue(torch.equal(first, torch.multinomial(probs, 5, True).cpu()))
        with self.assertRaisesRegex(RuntimeError, "invalid multinomial distribution"):
            torch.multinomial(torch.zeros(2, device=DEVICE), 1)
        x = torch.randn(3, 4)
        self.check(lambda t: tuple(torch.aminmax(t)), x)
        self.check(lambda t: tuple(torch.aminmax(t, dim=1, keepdim=True)), x)
        self.check(lambda t: tuple(torch.aminmax(t, dim=0)), x)
        torch._assert_async(torch.tensor(1, device=DEVICE))
        with self.assertRaisesRegex(RuntimeError, "the assertion's message"):
            torch._assert_async(torch.tensor(0, device=DEVICE), "the assertion's message")

    def test_dropout_forward_and_backward(self) -> None:
        x = torch.randn(200, 100, device=DEVICE, requires_grad=True)
        out, mask = torch.native_dropout(x, 0.3, True)
        self.assertEqual(mask.dtype, torch.bool)
        self.assertAlmostEqual(1 - mask.float().mean().item(), 0.3, delta=0.02)
        torch.testing.assert_close(out, x * mask / 0.7)
        out.sum().backward()
        torch.testing.assert_close(x.grad, mask / 0.7)
        evaluated, ones = torch.native_dropout(x, 0.3, False)
        self.assertTrue(torch.equal(evaluated, x) and bool(ones.all()))

    def test_fused_optimizers_match_the_cpu(self) -> None:
        cases = [(torch.optim.Adam, {"amsgrad": True}), (torch.optim.AdamW, {"maximize": True}),
                 (torch.optim.SGD, {"momentum": 0.9, "nesterov": True, "weight_decay": 0.01})]
        for cls, options in cases:
            with self.subTest(optimizer=cls.__name__):
                params = [torch.randn(5, 3), torch.randn(7)]
                grads = [[torch.randn_like(p) for p in params] for _ in range(3)]
                results = []
                for device, fused in (("cpu", False), (DEVICE, True)):
                    ps = [p.clone().to(device).requires_grad_() for p in params]
                    opt = cls(ps, lr=0.01, fused=fused, **options)
                    for step in grads:
                        for p, g in zip(ps, step, strict=False):
                            p.grad = g.to(device)
                        opt.step()
                    results.append([p.detach().cpu() for p in ps])
                torch.testing.assert_close(results[1], results[0], rtol=1e-5, atol=1e-6)

    def allow_gemm_fallback(self) -> None:
        """torch_sim has no GEMM kernels (the CUDA key's are cuBLAS plans): its recurrent
        layers' matmuls run on the CPU fallback. The cells themselves must not."""
        if DEVICE != "cuda":
            mod.set_fallback_policy("allow")
            self.addCleanup(self.assert_cells_native)

    def assert_cells_native(self) -> None:
        cells = [name for name in mod.fallback_counts() if name.startswith("aten::_thnn_fused")]
        self.assertEqual(cells, [])

    def test_recurrent_layers_match_the_cpu(self) -> None:
        # nn.LSTM and nn.GRU run cuDNN's RNN on the CUDA key and, without cuDNN (turned off,
        # or torch_sim), the fused cells (_thnn_fused_*_cell), which stock provides only for
        # CUDA; the CPU runs the unfused cells. cuDNN's TF32 off: float32's precision.
        self.allow_gemm_fallback()
        for cudnn in (True, False) if DEVICE == "cuda" else (False,):
            with torch.backends.cudnn.flags(enabled=cudnn, allow_tf32=False):
                self.check_recurrent_layers(cudnn)

    def check_recurrent_layers(self, cudnn: bool) -> None:
        for cls in (torch.nn.LSTM, torch.nn.GRU):
            for dtype, bias in ((torch.float32, True), (torch.float64, False)):
                with self.subTest(layer=cls.__name__, dtype=dtype, bias=bias, cudnn=cudnn):
                    cpu = cls(4, 6, num_layers=2, bias=bias, batch_first=True,
                              bidirectional=True).to(dtype)
                    dev = cls(4, 6, num_layers=2, bias=bias, batch_first=True,
                              bidirectional=True).to(dtype)
                    dev.load_state_dict(cpu.state_dict())
                    dev.to(DEVICE)
                    x = torch.randn(3, 5, 4, dtype=dtype)
                    xc, xd = x.clone().requires_grad_(), x.to(DEVICE).requires_grad_()
                    (yc, _), (yd, _) = cpu(xc), dev(xd)
                    grad = torch.randn_like(yc)
                    yc.backward(grad)
                    yd.backward(grad.to(DEVICE))
                    torch.testing.assert_close(yd.detach().cpu(), yc.detach())
                    torch.testing.assert_close(xd.grad.cpu(), xc.grad)
                    for pd, pc in zip(dev.parameters(), cpu.parameters(), strict=True):
                        torch.testing.assert_close(pd.grad.cpu(), pc.grad)

    def test_recurrent_cells_and_their_checks(self) -> None:
        self.allow_gemm_fallback()
        x, h = torch.randn(3, 4), torch.randn(3, 6)
        for cell in (torch.nn.LSTMCell(4, 6), torch.nn.GRUCell(4, 6, bias=False)):
            with self.subTest(cell=type(cell).__name__):
                state = (h, h * 0.5) if isinstance(cell, torch.nn.LSTMCell) else h
                expected = cell(x, state)
                moved = tuple(s.to(DEVICE) for s in state) if isinstance(state, tuple) else (
                    state.to(DEVICE))
                actual = cell.to(DEVICE)(x.to(DEVICE), moved)
                torch.testing.assert_close(
                    tuple(a.cpu() for a in actual) if isinstance(actual, tuple) else actual.cpu(),
                    expected)
        gates = torch.randn(3, 24, device=DEVICE)
        fused_lstm_cell = torch.ops.aten._thnn_fused_lstm_cell
        with self.assertRaisesRegex(RuntimeError, "'input_gates' to have same size as tensor"):
            fused_lstm_cell(gates, gates[:, :20], torch.randn(3, 6, device=DEVICE))
        with self.assertRaisesRegex(RuntimeError, "prev_hidden"):
            fused_lstm_cell(gates, gates, torch.randn(3, 5, device=DEVICE))

    def test_ctc_loss_takes_host_lengths(self) -> None:
        # _ctc_loss itself runs on the CPU fallback; what is checked is that ctc_loss with
        # lengths on the host, as stock's CUDA accepts them, reaches it.
        mod.set_fallback_policy("allow")
        log_probs = torch.randn(10, 2, 5).log_softmax(2)
        targets = torch.randint(1, 5, (2, 3))
        lengths = (torch.tensor([10, 9]), torch.tensor([3, 2]))
        f = torch.nn.functional
        expected = f.ctc_loss(log_probs, targets, *lengths)
        actual = f.ctc_loss(log_probs.to(DEVICE), targets.to(DEVICE), *lengths)
        torch.testing.assert_close(actual.cpu(), expected)


if __name__ == "__main__":
    main()
