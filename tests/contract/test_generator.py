"""Random numbers: seeding, reproducibility, state save/restore, distributions."""

import unittest

import torch
from backend import DEVICE, device, main, mod, requires_devices


class Generator(unittest.TestCase):
    def test_manual_seed_reproduces(self) -> None:
        mod.manual_seed(1234)
        a = torch.randn(100, device=DEVICE).cpu()
        b = torch.rand(100, device=DEVICE).cpu()
        mod.manual_seed(1234)
        self.assertTrue(torch.equal(torch.randn(100, device=DEVICE).cpu(), a))
        self.assertTrue(torch.equal(torch.rand(100, device=DEVICE).cpu(), b))
        mod.manual_seed(4321)
        self.assertFalse(torch.equal(torch.randn(100, device=DEVICE).cpu(), a))

    def test_consecutive_draws_differ(self) -> None:
        mod.manual_seed(0)
        self.assertFalse(
            torch.equal(torch.randn(16, device=DEVICE).cpu(), torch.randn(16, device=DEVICE).cpu())
        )

    def test_torch_manual_seed_seeds_the_device(self) -> None:
        torch.manual_seed(77)
        a = torch.randn(10, device=DEVICE).cpu()
        mod.manual_seed_all(77)
        self.assertTrue(torch.equal(torch.randn(10, device=DEVICE).cpu(), a))

    def test_rng_state_round_trip(self) -> None:
        mod.manual_seed(5)
        state = mod.get_rng_state()
        self.assertEqual(state.dtype, torch.uint8)
        self.assertEqual(state.device, torch.device("cpu"))
        first = torch.randn(32, device=DEVICE).cpu()
        mod.set_rng_state(state)
        self.assertTrue(torch.equal(torch.randn(32, device=DEVICE).cpu(), first))
        self.assertEqual(mod.initial_seed(), 5)

    def test_bad_rng_state_is_a_clear_error(self) -> None:
        # Initialise first: before it, stock torch.cuda queues set_rng_state (and so its
        # error) until the device initialises.
        torch.ones(1, device=DEVICE)
        with self.assertRaisesRegex(RuntimeError, "RNG state is wrong size"):  # stock's
            mod.set_rng_state(torch.zeros(3, dtype=torch.uint8))
        with self.assertRaises((TypeError, RuntimeError)):
            mod.set_rng_state(torch.zeros(16, dtype=torch.float32))

    def test_explicit_generator(self) -> None:
        g = torch.Generator(device=DEVICE)
        g.manual_seed(9)
        a = torch.randn(20, device=DEVICE, generator=g).cpu()
        g.manual_seed(9)
        self.assertTrue(torch.equal(torch.randn(20, device=DEVICE, generator=g).cpu(), a))
        self.assertEqual(g.device.type, DEVICE)

    def test_distributions(self) -> None:
        mod.manual_seed(0)
        n = torch.randn(20000, device=DEVICE).cpu()
        self.assertLess(abs(n.mean().item()), 0.05)
        self.assertLess(abs(n.std().item() - 1.0), 0.05)
        u = torch.empty(20000, device=DEVICE).uniform_(2.0, 3.0).cpu()
        self.assertGreaterEqual(u.min().item(), 2.0)
        self.assertLess(u.max().item(), 3.0)
        self.assertLess(abs(u.mean().item() - 2.5), 0.02)
        d = torch.randn(1000, dtype=torch.float64, device=DEVICE)
        self.assertEqual(d.dtype, torch.float64)

    @requires_devices(2)
    def test_devices_have_their_own_generators(self) -> None:
        mod.manual_seed_all(3)
        a0 = torch.randn(8, device=device(0)).cpu()
        a1 = torch.randn(8, device=device(1)).cpu()
        self.assertTrue(torch.equal(a0, a1), "same seed, same stream on each device")
        state1 = mod.get_rng_state(1)
        torch.randn(8, device=device(0))
        self.assertTrue(
            torch.equal(mod.get_rng_state(1), state1), "drawing on device 0 left device 1 alone"
        )


if __name__ == "__main__":
    main()
