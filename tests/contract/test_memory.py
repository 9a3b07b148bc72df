"""The caching allocator through torch.<device>.memory_* and torch.accelerator."""

import unittest

import torch
from backend import DEVICE, main, mod

MiB = 1 << 20


class Memory(unittest.TestCase):
    def setUp(self) -> None:
        torch.empty(1, device=DEVICE)  # initialised
        mod.synchronize()
        mod.empty_cache()
        mod.reset_peak_memory_stats()

    def test_allocated_grows_and_shrinks(self) -> None:
        before = mod.memory_allocated()
        x = torch.empty(4 * MiB, dtype=torch.uint8, device=DEVICE)
        self.assertGreaterEqual(mod.memory_allocated(), before + 4 * MiB)
        self.assertGreaterEqual(mod.max_memory_allocated(), before + 4 * MiB)
        self.assertGreaterEqual(mod.memory_reserved(), mod.memory_allocated())
        del x
        self.assertEqual(mod.memory_allocated(), before)
        self.assertGreaterEqual(mod.max_memory_allocated(), before + 4 * MiB)

    def test_freed_memory_is_cached_then_released(self) -> None:
        x = torch.empty(8 * MiB, dtype=torch.uint8, device=DEVICE)
        del x
        cached = mod.memory_reserved()
        self.assertGreaterEqual(cached, 8 * MiB, "freed blocks stay reserved (cached)")
        y = torch.empty(8 * MiB, dtype=torch.uint8, device=DEVICE)
        self.assertEqual(mod.memory_reserved(), cached, "the cached block is reused")
        del y
        mod.empty_cache()
        self.assertLess(mod.memory_reserved(), cached)

    def test_peak_reset(self) -> None:
        x = torch.empty(2 * MiB, dtype=torch.uint8, device=DEVICE)
        del x
        self.assertGreater(mod.max_memory_allocated(), mod.memory_allocated())
        mod.reset_peak_memory_stats()
        self.assertEqual(mod.max_memory_allocated(), mod.memory_allocated())

    def test_stats_snapshot_summary(self) -> None:
        x = torch.empty(MiB, dtype=torch.uint8, device=DEVICE)
        stats = mod.memory_stats()
        for key in (
            "allocated_bytes.all.current",
            "reserved_bytes.all.peak",
            "segment.all.current",
            "num_ooms",
        ):
            self.assertIn(key, stats)
        self.assertGreaterEqual(stats["allocation.all.current"], 1)
        segments = mod.memory_snapshot()
        blocks = [b for s in segments for b in s["blocks"] if b["state"] == "active_allocated"]
        self.assertTrue(
            any(b["size"] >= MiB and b["address"] == x.data_ptr() for b in blocks), blocks
        )
        summary = mod.memory_summary()
        self.assertIn("Allocated memory", summary)
        # torch_core's row is "Reserved memory", stock torch.cuda's "GPU reserved memory".
        self.assertRegex(summary, "(?i)reserved memory")
        del x

    def test_mem_get_info(self) -> None:
        free, total = mod.mem_get_info()
        self.assertGreater(total, 0)
        self.assertLessEqual(free, total)

    def test_torch_accelerator_memory_calls(self) -> None:
        x = torch.empty(MiB, dtype=torch.uint8, device=DEVICE)
        self.assertEqual(torch.accelerator.memory_allocated(), mod.memory_allocated())
        self.assertEqual(torch.accelerator.memory_reserved(), mod.memory_reserved())
        self.assertEqual(
            torch.accelerator.memory_stats()["allocated_bytes.all.current"], mod.memory_allocated()
        )
        del x
        torch.accelerator.empty_cache()
        torch.accelerator.reset_peak_memory_stats()
        self.assertEqual(torch.accelerator.max_memory_allocated(), mod.memory_allocated())


if __name__ == "__main__":
    main()
