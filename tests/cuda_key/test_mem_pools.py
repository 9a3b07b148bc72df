"""torch.cuda.MemPool, use_mem_pool and pluggable allocators on the CUDA key, as stock CUDA
torch has them: a pool's allocations stay in its own segments and are reused there, its
snapshot and live allocations are its own, deleting it gives its cached memory back, a pool
may take its segments from an allocator's functions, and change_current_allocator (before
the allocator is first used) sends every allocation to such functions. The functions here
are ctypes callbacks over the runtime's own memory (stock's _use_uvm is built the same way);
a shared library's functions are called the same way, by address.
"""

from __future__ import annotations

import ctypes
import unittest

import torch
from child_python import run_python

import _CUDAC

ALLOC_FN = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_ssize_t, ctypes.c_int, ctypes.c_void_p)
FREE_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p)


class CountingAllocator:
    """A pluggable allocator over the runtime's memory that logs every call."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int, int]] = []
        self._alloc = ALLOC_FN(self._allocate)
        self._free = FREE_FN(self._release)
        self.allocator = torch.cuda.memory._CUDAAllocator(
            torch._C._cuda_customAllocator(
                ctypes.cast(self._alloc, ctypes.c_void_p).value,
                ctypes.cast(self._free, ctypes.c_void_p).value,
            )
        )

    def _allocate(self, size: int, device: int, stream: int | None) -> int:
        self.calls.append(("alloc", size, device))
        return _CUDAC._runtime_malloc(size, device)

    def _release(self, ptr: int, size: int, device: int, stream: int | None) -> None:
        self.calls.append(("free", size, device))
        _CUDAC._runtime_free(ptr, device)


def pool_addresses(pool: torch.cuda.MemPool) -> set[int]:
    return {
        block["address"]
        for segment in pool.snapshot(include_traces=False)
        for block in segment["blocks"]
        if block["state"] == "active_allocated"
    }


class MemPools(unittest.TestCase):
    def setUp(self) -> None:
        torch.cuda.synchronize()
        torch.cuda.empty_cache()

    def test_allocations_go_to_the_pool_in_the_context(self) -> None:
        pool = torch.cuda.MemPool()
        self.assertEqual(pool.id[0], 0)
        self.assertGreater(pool.id[1], 0)
        self.assertIsNone(pool.allocator)
        self.assertEqual(pool.use_count(), 1)
        with torch.cuda.use_mem_pool(pool):
            self.assertEqual(pool.use_count(), 2)
            inside = torch.arange(1000, device="cuda", dtype=torch.float32)
        outside = torch.ones(1000, device="cuda")
        self.assertEqual(pool.use_count(), 1)
        self.assertEqual(pool_addresses(pool), {inside.data_ptr()})
        for segment in pool.snapshot():
            self.assertEqual(tuple(segment["segment_pool_id"]), pool.id)
        self.assertNotIn(outside.data_ptr(), pool_addresses(pool))
        self.assertTrue(
            torch._C._cuda_checkPoolLiveAllocations(0, pool.id, {inside.data_ptr()})
        )
        self.assertFalse(torch._C._cuda_checkPoolLiveAllocations(0, pool.id, set()))

        # Freed in the pool, the block serves the pool's next request, not eager ones.
        address = inside.data_ptr()
        del inside
        eager = torch.empty(1000, device="cuda")
        self.assertNotEqual(eager.data_ptr(), address)
        with torch.cuda.use_mem_pool(pool):
            again = torch.empty(1000, device="cuda")
        self.assertEqual(again.data_ptr(), address)
        self.assertEqual(torch.cuda.memory_snapshot(), torch.cuda.memory_snapshot((0, 0)))

    def test_deleting_the_pool_gives_its_memory_back(self) -> None:
        pool = torch.cuda.MemPool()
        with torch.cuda.use_mem_pool(pool):
            kept = torch.full((1 << 20,), 3.0, device="cuda")  # 4 MiB: a 20 MiB segment
            dropped = torch.empty(1 << 20, device="cuda")
        del dropped
        reserved = torch.cuda.memory_reserved()
        pool_id = pool.id
        del pool
        # The tensor outlives the pool object, and its segment stays until it is freed.
        self.assertEqual(torch.cuda.memory_reserved(), reserved)
        self.assertEqual(kept.sum().item(), 3.0 * (1 << 20))
        del kept
        torch.cuda.empty_cache()
        self.assertEqual(torch.cuda.memory_reserved(), reserved - (20 << 20))
        with self.assertRaisesRegex(RuntimeError, "Could not find pool"):
            torch._C._cuda_checkPoolLiveAllocations(0, pool_id, set())

    def test_pool_with_its_own_allocator(self) -> None:
        counting = CountingAllocator()
        pool = torch.cuda.MemPool(counting.allocator.allocator())
        self.assertIs(pool.allocator, counting.allocator.allocator())
        with torch.cuda.use_mem_pool(pool):
            x = torch.arange(10, device="cuda", dtype=torch.float32)
            y = torch.empty(3 << 20, device="cuda", dtype=torch.uint8)
        outside = torch.empty(10, device="cuda")
        self.assertEqual(counting.calls, [("alloc", 2 << 20, 0), ("alloc", 20 << 20, 0)])
        self.assertEqual((x * 2).sum().item(), 90.0)
        del x, y, outside
        del pool
        self.assertEqual(
            sorted(counting.calls[2:]), [("free", 2 << 20, 0), ("free", 20 << 20, 0)]
        )

    def test_use_on_oom_pool_serves_a_full_device(self) -> None:
        # As stock: a request of the default pools that finds the device full takes a cached
        # block of a use_on_oom pool, and only while that pool lives.
        mib = 1 << 20
        for use_on_oom in (True, False):
            with self.subTest(use_on_oom=use_on_oom):
                torch.cuda.empty_cache()
                pool = torch.cuda.MemPool(use_on_oom=use_on_oom)
                with torch.cuda.use_mem_pool(pool):
                    cached = torch.empty(12 * mib, dtype=torch.uint8, device="cuda")
                address = cached.data_ptr()
                del cached  # cached in the pool: still reserved
                total = torch.cuda.get_device_properties(0).total_memory
                torch.cuda.set_per_process_memory_fraction(
                    (torch.cuda.memory_reserved() + 4 * mib) / total
                )
                try:
                    if use_on_oom:
                        borrowed = torch.empty(12 * mib, dtype=torch.uint8, device="cuda")
                        self.assertEqual(borrowed.data_ptr(), address)
                        del borrowed
                    else:
                        with self.assertRaises(torch.OutOfMemoryError):
                            torch.empty(12 * mib, dtype=torch.uint8, device="cuda")
                finally:
                    torch.cuda.set_per_process_memory_fraction(1.0)
                del pool

    def test_no_split_pool_hands_out_whole_segments(self) -> None:
        mib = 1 << 20
        for no_split, reserved in ((False, 20 * mib), (True, 40 * mib)):
            with self.subTest(no_split=no_split):
                pool = torch.cuda.MemPool(no_split=no_split)
                with torch.cuda.use_mem_pool(pool):
                    x = torch.empty(2 * mib, dtype=torch.uint8, device="cuda")
                    y = torch.empty(2 * mib, dtype=torch.uint8, device="cuda")
                segments = pool.snapshot()
                self.assertEqual(sum(s["total_size"] for s in segments), reserved)
                adjacent = y.data_ptr() - x.data_ptr() == 2 * mib
                self.assertEqual(adjacent, not no_split)
                del x, y, pool

    def test_memory_pool_misuse(self) -> None:
        with self.assertRaisesRegex(RuntimeError, "Could not find pool"):
            torch._C._cuda_checkPoolLiveAllocations(0, (0, 987654), set())

    def test_host_allocator_address(self) -> None:
        self.assertGreater(torch.cuda.memory._host_allocator(), 0)


SWAPPED = """
import ctypes, torch, _CUDAC
from test_mem_pools import CountingAllocator
counting = CountingAllocator()
torch.cuda.memory.change_current_allocator(counting.allocator)
x = torch.ones(1000, device="cuda") * 2
print(x.sum().item())
print(torch.cuda.memory._get_current_allocator().allocator() is not None)
del x
print(counting.calls[0], counting.calls[-1], len(counting.calls) % 2)
try:
    torch.cuda.memory_allocated()
except RuntimeError as e:
    print("stats:", "CUDAPluggableAllocator does not support" in str(e))
try:
    torch.cuda.memory.change_current_allocator(CountingAllocator().allocator)
except RuntimeError as e:
    print("swap:", e)
"""


class PluggableAllocator(unittest.TestCase):
    def test_change_current_allocator_before_first_use(self) -> None:
        result = run_python(SWAPPED)
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = result.stdout.splitlines()
        self.assertEqual(lines[0], "2000.0")
        self.assertEqual(lines[1], "True")
        self.assertEqual(lines[2], "('alloc', 4000, 0) ('free', 4000, 0) 0")
        self.assertEqual(lines[3], "stats: True")
        self.assertEqual(lines[4], "swap: Can't swap an already initialized allocator")

    def test_swap_after_first_use_is_refused(self) -> None:
        torch.ones(1, device="cuda")
        with self.assertRaisesRegex(RuntimeError, "Can't swap an already initialized allocator"):
            torch.cuda.memory.change_current_allocator(CountingAllocator().allocator)


if __name__ == "__main__":
    unittest.main()
