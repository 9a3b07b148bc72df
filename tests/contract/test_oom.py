"""Out of memory: torch.OutOfMemoryError, and the process stays usable after it."""

import unittest

import torch
from backend import DEVICE, main, mod


class OutOfMemory(unittest.TestCase):
    def test_too_large_raises_out_of_memory_error(self) -> None:
        total = mod.get_device_properties(0).total_memory
        ooms = mod.memory_stats().get("num_ooms", 0)
        with self.assertRaises(torch.OutOfMemoryError) as caught:
            torch.empty(total + (1 << 20), dtype=torch.uint8, device=DEVICE)
        self.assertIn("out of memory", str(caught.exception).lower())
        self.assertEqual(mod.memory_stats()["num_ooms"], ooms + 1)

    def test_filling_the_device_then_recovering(self) -> None:
        total = mod.get_device_properties(0).total_memory
        chunk = max(total // 16, 1 << 20)
        held = []
        with self.assertRaises(torch.OutOfMemoryError):
            for _ in range(64):
                held.append(torch.ones(chunk // 4, device=DEVICE))
        self.assertGreater(len(held), 4, "the device should hold several chunks before it is full")
        held.clear()
        mod.empty_cache()
        # Usable again: allocations and kernels work and give right answers.
        x = torch.ones(chunk // 4, device=DEVICE)
        self.assertEqual(x.sum().item(), chunk // 4)
        self.assertTrue(
            torch.equal((torch.arange(10.0, device=DEVICE) * 2).cpu(), torch.arange(10.0) * 2)
        )


if __name__ == "__main__":
    main()
