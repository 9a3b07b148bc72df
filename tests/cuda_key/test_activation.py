"""Activation: the .pth route (here sitecustomize), what it loads, the opt-out, a clear error
when torch_cuda comes after a torch that initialised without it, and a failed activation
that stays failed (a retried import never comes up as plain CPU torch)."""

from __future__ import annotations

import subprocess
import unittest

import _torch_cuda_activate
from child_python import run_python


def run(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    """A fresh interpreter."""
    return run_python(code, **env)


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
        # Nothing of torch's is imported until the program imports torch. (Its time is not
        # asserted: a timed test fails on a loaded machine, as on the H200 at 6685369.)
        self.assertEqual(
            result.stdout.strip(), "['_torch_cuda_activate', 'torch_core', 'torch_core.preload']"
        )

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

    def test_bad_setting_fails_the_import_cleanly_and_stays_failed(self) -> None:
        code = """
for attempt in ("first", "retry"):
    try:
        import torch
        print(attempt, "imported", torch.cuda.is_available())
    except ImportError as error:
        print(attempt, "ImportError:", error)
"""
        result = run(code, TORCH_CUDA_FALLBACK="bogus")
        self.assertEqual(result.returncode, 0, result.stderr)
        first, retry = result.stdout.strip().splitlines()
        cause = "TORCH_CUDA_FALLBACK: unknown CPU fallback policy 'bogus'"
        self.assertEqual(
            first, f"first ImportError: {cause}: expected 'allow', 'warn' or 'error'"
        )  # the message alone: no C++ backtrace
        self.assertTrue(retry.startswith("retry ImportError: the backend failed to load"), retry)
        self.assertIn(cause, retry)
        self.assertNotIn("frame #", result.stdout + result.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
