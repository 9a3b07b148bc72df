"""Bad input on the CUDA key (simulated torch_cuda, 2 devices of 64 MiB)."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import unittest

import torch


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


class BadInput(unittest.TestCase):
    def test_invalid_device_index(self) -> None:
        # Stock raises cudaSetDevice's error: torch.AcceleratorError, a RuntimeError.
        for call in (lambda: torch.ones(1, device="cuda:7"), lambda: torch.cuda.set_device(7),
                     lambda: torch.cuda.Stream(device=7)):
            with self.assertRaisesRegex(
                torch.AcceleratorError, r"CUDA error: invalid device ordinal \(cuda device index 7"
            ):
                call()
        with self.assertRaisesRegex(AssertionError, "Invalid device id"):
            torch.cuda.get_device_properties(7)
        self.assertEqual(torch.ones(1, device="cuda:1").device.index, 1)  # still usable

    def test_shape_checks_that_a_shortcut_must_not_skip(self) -> None:
        # beta=0 does not read self, and an empty destination copies nothing, but stock
        # checks the shapes all the same: the same error as on the CPU.
        def ones(*shape: int, device: str) -> torch.Tensor:
            return torch.ones(*shape, device=device)

        cases = {
            "addmm beta=0": lambda d: torch.addmm(
                ones(5, 7, device=d), ones(2, 3, device=d), ones(3, 4, device=d), beta=0
            ),
            "baddbmm beta=0": lambda d: torch.baddbmm(
                ones(5, 7, 1, device=d), ones(1, 2, 3, device=d), ones(1, 3, 4, device=d), beta=0
            ),
            "addmv beta=0": lambda d: torch.addmv(
                ones(5, device=d), ones(2, 3, device=d), ones(3, device=d), beta=0
            ),
            "copy_ into empty": lambda d: torch.empty(0, device=d).copy_(ones(3, device=d)),
            "copy_ from a larger shape": lambda d: torch.empty(3, device=d).copy_(torch.ones(2, 3)),
        }
        for name, call in cases.items():
            with self.subTest(case=name):
                with self.assertRaises(RuntimeError) as on_cpu:
                    call("cpu")
                with self.assertRaises(RuntimeError) as on_cuda:
                    call("cuda")
                self.assertEqual(str(on_cuda.exception), str(on_cpu.exception))

    def test_record_stream_of_another_device_does_not_leak(self) -> None:
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        before = torch.cuda.memory_allocated(0)
        t = torch.ones(1 << 18, device="cuda:0")
        other = torch.cuda.Stream(device=1)
        t.record_stream(other)
        del t  # its free records an event on device 1's stream
        torch.cuda.synchronize(1)
        torch.cuda.synchronize(0)
        self.assertEqual(torch.cuda.memory_allocated(0), before)
        torch.cuda.empty_cache()
        self.assertEqual(torch.cuda.memory_reserved(0), 0)

    def test_elapsed_time_of_unrecorded_events(self) -> None:
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        with self.assertRaisesRegex(RuntimeError, "Both events must be recorded"):
            start.elapsed_time(end)

    def run_python(self, code: str, **env: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              env={**os.environ, **env}, check=False)

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
        result = self.run_python(code, TORCH_SIM_DEVICE_COUNT="abc")
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
        result = self.run_python(code, TORCH_SIM_DEVICE_COUNT="0")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertRegex(result.stdout, "RuntimeError No CUDA devices are available: .*0 devices")

    def test_cross_device_op_without_copy(self) -> None:
        a = torch.ones(2, device="cuda:0")
        b = torch.ones(2, device="cuda:1")
        with self.assertRaisesRegex(
            RuntimeError, r"(?i)same device|different devices|cuda:0.*cuda:1"
        ):
            _ = a + b
        with self.assertRaisesRegex(RuntimeError, r"(?i)same device|different devices|cpu"):
            _ = a + torch.ones(2)

    def test_mixed_devices_raise_before_the_cpu_fallback(self) -> None:
        # The fallback moves every argument to the CPU: it checks first that they share a
        # device, as stock's kernels do; a 0-dim CPU tensor is a scalar and may join.
        a = torch.randn(3, 3)
        on_0, on_1 = a.cuda(), a.to("cuda:1")
        cases = {
            "mm, CPU operand": (lambda: on_0 @ a, "mat2 is on cpu, different from .* on cuda:0"),
            "mm, CPU self": (lambda: a @ on_0, "mat2 is on cuda:0, different from .* on cpu"),
            "mm, two devices": (lambda: on_0 @ on_1, "mat2 is on cuda:1"),
            "cdist": (lambda: torch.cdist(on_0, a), "x2 is on cpu"),
            "conv2d, CPU weight": (
                lambda: torch.nn.functional.conv2d(on_0.view(1, 1, 3, 3), torch.ones(1, 1, 2, 2)),
                "weight is on cpu",
            ),
        }
        for name, (call, message) in cases.items():
            with self.subTest(case=name):
                expected = "Expected all tensors to be on the same device, but got " + message
                with self.assertRaisesRegex(RuntimeError, expected):
                    call()
        scalar = torch.tensor(2.0)
        on_device = torch.igamma(on_0.abs(), scalar)
        torch.testing.assert_close(on_device.cpu(), torch.igamma(a.abs(), scalar))

    def test_copy_from_a_partly_overlapping_view(self) -> None:
        # Stock's TensorIterator refuses it (the result would depend on the copy order).
        x = torch.arange(5.0, device="cuda")
        with self.assertRaisesRegex(RuntimeError, "unsupported operation: some elements of"):
            x[1:].copy_(x[:-1])
        x.copy_(x)  # the same memory exactly is fine
        self.assertEqual(x.tolist(), [0.0, 1.0, 2.0, 3.0, 4.0])

    def test_oom_is_clear_and_recoverable(self) -> None:
        torch.cuda.init()
        keep = torch.empty(16 << 20, dtype=torch.uint8, device="cuda")
        with self.assertRaises(torch.OutOfMemoryError) as caught:
            torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
        self.assertRegex(str(caught.exception), r"(?i)out of memory")
        del keep
        torch.cuda.empty_cache()
        self.assertEqual(torch.cuda.memory_reserved(), 0)
        x = torch.ones(1 << 20, device="cuda")  # the process is still usable
        self.assertEqual(x.sum().item(), float(1 << 20))

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
        self.assertIn("initialization error", message)
        self.assertIn("forked child", message)
        self.assertEqual((_inherited + 1).sum().item(), 6.0)  # the parent still works
        _inherited = None  # other tests count the memory in use


if __name__ == "__main__":
    unittest.main(verbosity=2)
