"""Activation: the .pth route (here sitecustomize), its cost, the opt-out, and a clear
error when torch_cuda comes after a torch that initialised without it."""

from __future__ import annotations

import os
import subprocess
import sys
import unittest

import _torch_cuda_activate


def run(code: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        check=False,
    )


class Activation(unittest.TestCase):
    def test_active_without_a_line_in_user_code(self) -> None:
        import torch

        self.assertEqual(_torch_cuda_activate.state(), "active")
        self.assertTrue(torch._C._has_cuda)
        self.assertTrue(hasattr(torch._C, "_cuda_getDeviceCount"))
        self.assertTrue(issubclass(torch.cuda.Stream, torch._C._CudaStreamBase))

    def test_costs_nothing_without_torch(self) -> None:
        result = run(
            "import sys; print(sorted(m for m in sys.modules if 'torch' in m or m == '_CUDAC'))"
        )
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(
            result.stdout.strip(), "['_torch_cuda_activate', 'torch_core', 'torch_core.preload']"
        )
        # -X importtime: microseconds spent importing the activation (self + cumulative).
        lines = [line for line in result.stderr.splitlines() if "_torch_cuda_activate" in line]
        cumulative_us = int(lines[-1].split("|")[1])
        self.assertLess(cumulative_us, 20_000, lines)

    def test_opt_out(self) -> None:
        result = run(
            "import torch; print(torch.cuda.is_available(), torch.version.cuda)",
            TORCH_CUDA_ACTIVATE="0",
        )
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.strip(), "False None")

    def test_import_after_unactivated_torch_says_why(self) -> None:
        result = run("import torch, torch_cuda", TORCH_CUDA_ACTIVATE="0")
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("TorchAlreadyImportedError", result.stderr)
        self.assertIn("torch was imported before it", result.stderr)

    def test_explicit_import_before_torch(self) -> None:
        result = run(
            "import torch_cuda, torch; print(torch.cuda.is_available())", TORCH_CUDA_ACTIVATE="0"
        )
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.strip(), "True")


if __name__ == "__main__":
    unittest.main(verbosity=2)
