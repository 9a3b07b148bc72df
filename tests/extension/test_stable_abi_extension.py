"""An extension built against torch's stable ABI only (TORCH_STABLE_ONLY), using its CUDA
entries (guards, current and pool streams): built just in time for the simulated variant
and loaded, its CUDA entries resolved in _CUDAC, agreeing with torch.cuda's view of
devices and streams."""

from __future__ import annotations

import os
import unittest
from pathlib import Path

import torch

import torch_cuda.cpp_extension

os.environ["TORCH_EXTENSIONS_DIR"] = str(Path(os.environ["TEST_TMPDIR"]) / "torch_extensions")
torch_cuda.cpp_extension.load(
    "stable_cuda",
    [os.environ["STABLE_ABI_SOURCE"]],
    extra_cflags=["-DTORCH_STABLE_ONLY", "-DUSE_CUDA"],
)
ops = torch.ops.stable_cuda


class StableAbiExtension(unittest.TestCase):
    def test_current_stream_of_the_tensors_device_under_a_guard(self) -> None:
        for device in ("cuda:0", "cuda:1"):
            x = torch.ones(2, device=device)
            self.assertEqual(ops.current_stream(x), torch.cuda.current_stream(device).cuda_stream)
        side = torch.cuda.Stream(device="cuda:1")
        with torch.cuda.stream(side):
            self.assertEqual(ops.current_stream(torch.ones(2, device="cuda:1")), side.cuda_stream)
        self.assertEqual(torch.cuda.current_device(), 0)

    def test_a_pool_stream_made_current_is_torchs_current_stream(self) -> None:
        # (torch.cuda.set_stream also makes the stream's device current, as stock's does.)
        with torch.cuda.device(1):
            before = torch.cuda.current_stream()
            try:
                handle = ops.use_pool_stream(1)
                self.assertEqual(torch.cuda.current_stream(1).cuda_stream, handle)
                self.assertNotEqual(handle, torch.cuda.default_stream(1).cuda_stream)
            finally:
                torch.cuda.set_stream(before)
        self.assertEqual(torch.cuda.current_device(), 0)

    def test_the_guard_switches_the_device_and_restores_it(self) -> None:
        self.assertEqual(ops.device_inside_guard(1), 1)
        self.assertEqual(torch.cuda.current_device(), 0)

    def test_a_bad_device_index_fails_with_torchs_message(self) -> None:
        with self.assertRaisesRegex(RuntimeError, "create_cuda_guard failed"):
            ops.device_inside_guard(7)


if __name__ == "__main__":
    unittest.main()
