"""torch_sim's extension builder, the same class as torch_cuda's with another device: a
JIT build of an operator for PrivateUse1 whose kernel runs on the sim device's host engine."""

from __future__ import annotations

import os
import unittest
from pathlib import Path

import torch

import torch_sim.cpp_extension
from torch_core.cpp_extension import DeviceExtensionBuilder

os.environ["TORCH_EXTENSIONS_DIR"] = str(Path(os.environ["TEST_TMPDIR"]) / "torch_extensions")
LIBRARY = torch_sim.cpp_extension.load("sim_ops", [os.environ["SIM_OPS_SOURCE"]])


class SimExtension(unittest.TestCase):
    def test_the_builder_is_torch_cores_for_the_sim_device(self) -> None:
        self.assertIsInstance(torch_sim.cpp_extension._builder, DeviceExtensionBuilder)
        self.assertIn(f"{os.sep}sim_simulated{os.sep}", LIBRARY)

    def test_the_kernel_runs_on_the_sim_device_and_agrees_with_the_cpu(self) -> None:
        x, y = torch.randn(4, 3, dtype=torch.float64), torch.randn(3, dtype=torch.float64)
        out = torch.ops.sim_ops.scaled_add(x.to("sim:1"), y.to("sim:1"), 0.5)
        self.assertEqual(out.device, torch.device("sim:1"))
        torch.testing.assert_close(out.cpu(), x + 0.5 * y)


if __name__ == "__main__":
    unittest.main()
