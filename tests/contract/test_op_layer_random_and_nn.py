"""The op layer's random operators, pooling, dropout and fused optimizers on the backend:
natively, drawing from the device generator, agreeing with the CPU (see test_op_layer.py)."""

from __future__ import annotations

import torch
from backend import DEVICE, main
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


if __name__ == "__main__":
    main()
