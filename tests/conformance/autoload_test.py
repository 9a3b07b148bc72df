"""torch_sim autoloads through torch's `torch.backends` entry-point group.

The test's import path holds a real `torch_sim-0.1.0.dist-info` (autoload/site-packages:
METADATA + entry_points.txt naming `torch_sim:_autoload`), as `pip install` of a torch_sim
wheel would leave it. This file never imports torch_sim: `import torch` alone must load it
(torch/__init__.py `_import_device_backends`), and TORCH_DEVICE_BACKEND_AUTOLOAD=0 must
keep it off.
"""

import os
import subprocess
import sys
import unittest
from importlib.metadata import entry_points

import torch  # the only import of the backend's side: the entry point loads torch_sim


class Autoload(unittest.TestCase):
    def test_entry_point_is_declared(self) -> None:
        (entry,) = [e for e in entry_points(group="torch.backends") if e.name == "torch_sim"]
        self.assertEqual(entry.value, "torch_sim:_autoload")
        self.assertEqual(entry.dist.metadata["Name"], "torch_sim")

    def test_import_torch_loads_the_device(self) -> None:
        self.assertIn("torch_sim", sys.modules)  # imported by torch, not by this file
        self.assertEqual(torch._C._get_privateuse1_backend_name(), "sim")
        self.assertTrue(hasattr(torch, "sim"))
        self.assertGreaterEqual(torch.sim.device_count(), 1)
        x = torch.arange(6.0, device="sim").view(2, 3)
        self.assertEqual(x.device.type, "sim")
        self.assertEqual((x + x).sum().item(), 30.0)
        self.assertEqual(torch.sin(x).cpu().shape, (2, 3))  # through the CPU fallback
        self.assertTrue(x.is_sim)  # generated Tensor methods

    def _run(self, autoload: str) -> str:
        code = (
            "import sys, torch\n"
            "print('torch_sim' in sys.modules, hasattr(torch, 'sim'),"
            " torch._C._get_privateuse1_backend_name())\n"
        )
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path),
                   TORCH_DEVICE_BACKEND_AUTOLOAD=autoload)
        result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                                text=True, timeout=300)
        self.assertEqual(result.returncode, 0, result.stderr)
        return result.stdout.strip()

    def test_autoload_off(self) -> None:
        self.assertEqual(self._run("0"), "False False privateuseone")

    def test_autoload_on_in_a_fresh_process(self) -> None:
        self.assertEqual(self._run("1"), "True True sim")


if __name__ == "__main__":
    unittest.main(verbosity=2)
