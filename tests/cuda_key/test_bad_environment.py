"""Bad settings and processes on the CUDA key (simulated torch_cuda, 2 devices of 64 MiB):
malformed simulator and allocator variables, no devices, CUDA in a forked child. Each
setting is read once, so those cases run in a fresh interpreter."""

from __future__ import annotations

import multiprocessing
import unittest

import torch
from child_python import run_python

import torch_cuda

SIMULATED = torch_cuda.build_info().variant == "simulated"


def _use_cuda_in_child(queue: multiprocessing.Queue) -> None:
    try:
        torch.ones(1, device="cuda")
        queue.put("no error")
    except RuntimeError as error:
        queue.put(str(error))


_inherited: torch.Tensor | None = None


def _use_inherited_tensor_in_child(queue: multiprocessing.Queue) -> None:
    try:
        assert _inherited is not None
        queue.put(str((_inherited + 1).cpu()))
    except RuntimeError as error:
        queue.put(str(error))


class BadEnvironment(unittest.TestCase):
    @unittest.skipUnless(SIMULATED, "TORCH_SIM_* settings are the simulated variant's")
    def test_bad_simulator_settings_warn_and_then_raise_the_cause(self) -> None:
        code = """
import warnings, torch
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print(torch.cuda.is_available())
print([str(w.message).split(" (Triggered")[0] for w in caught])
try:
    torch.ones(1, device="cuda")
except RuntimeError as error:
    print(error)
"""
        result = run_python(code, TORCH_SIM_DEVICE_COUNT="abc")
        self.assertEqual(result.returncode, 0, result.stderr)
        available, warned, raised = result.stdout.strip().splitlines()
        cause = "TORCH_SIM_DEVICE_COUNT='abc' is not valid"
        self.assertEqual(available, "False")
        self.assertIn(f"CUDA initialization: {cause}", warned)  # stock's warning
        self.assertIn(cause, raised)

    def test_no_devices_is_a_runtime_error_naming_why(self) -> None:
        code = """
import torch
try:
    torch.ones(1, device="cuda")
except RuntimeError as error:
    print(type(error).__name__, error)
"""
        if SIMULATED:
            result = run_python(code, TORCH_SIM_DEVICE_COUNT="0")
            reason = "the simulated runtime is configured with 0 devices"
        else:  # cudart's own reason
            result = run_python(code, CUDA_VISIBLE_DEVICES="")
            reason = "(?i)no CUDA-capable device"
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertRegex(result.stdout, "^RuntimeError No CUDA devices are available: ")
        self.assertRegex(result.stdout, reason)

    def test_allocator_settings_name_the_variable_they_came_from(self) -> None:
        code = """
import torch
try:
    torch.ones(1, device="cuda")
except RuntimeError as error:
    print(error)
"""
        cases = [
            ({"PYTORCH_ALLOC_CONF": "max_split_size_mb:1"}, "PYTORCH_ALLOC_CONF", "must be >= 20"),
            ({"PYTORCH_CUDA_ALLOC_CONF": "foo:1"}, "PYTORCH_CUDA_ALLOC_CONF", "unknown key 'foo'"),
            # The current name wins over the older alias, as in stock.
            (
                {"PYTORCH_ALLOC_CONF": "foo:1", "PYTORCH_CUDA_ALLOC_CONF": "max_split_size_mb:64"},
                "PYTORCH_ALLOC_CONF",
                "unknown key 'foo'",
            ),
        ]
        for env, variable, message in cases:
            with self.subTest(**env):
                result = run_python(code, **env)
                self.assertEqual(result.returncode, 0, result.stderr)
                self.assertIn(f"invalid {variable}=", result.stdout)
                self.assertIn(message, result.stdout)

    def test_cuda_in_forked_child_after_init(self) -> None:
        torch.ones(1, device="cuda")
        context = multiprocessing.get_context("fork")
        queue = context.Queue()
        child = context.Process(target=_use_cuda_in_child, args=(queue,))
        child.start()
        message = queue.get(timeout=60)
        child.join(60)
        self.assertIn("Cannot re-initialize CUDA in forked subprocess", message)

    def test_inherited_tensor_in_forked_child_raises_instead_of_hanging(self) -> None:
        global _inherited
        _inherited = torch.ones(3, device="cuda")
        context = multiprocessing.get_context("fork")
        queue = context.Queue()
        child = context.Process(target=_use_inherited_tensor_in_child, args=(queue,))
        child.start()
        try:
            message = queue.get(timeout=60)  # hung forever before
        finally:
            child.join(60)
            if child.is_alive():
                child.kill()
        self.assertIn("initialization error", message)  # cudart's, and the simulator's
        if SIMULATED:
            self.assertIn("forked child", message)
        self.assertEqual((_inherited + 1).sum().item(), 6.0)  # the parent still works
        _inherited = None  # other tests count the memory in use


if __name__ == "__main__":
    unittest.main(verbosity=2)
