"""Bad input on the CUDA key (simulated torch_cuda, 2 devices of 64 MiB)."""

from __future__ import annotations

import multiprocessing
import unittest

import torch


def _use_cuda_in_child(queue: multiprocessing.Queue) -> None:
    try:
        torch.ones(1, device="cuda")
        queue.put("no error")
    except RuntimeError as error:
        queue.put(str(error))


class BadInput(unittest.TestCase):
    def test_invalid_device_index(self) -> None:
        with self.assertRaisesRegex(Exception, r"(?i)invalid.*device|device.*(index|ordinal)"):
            torch.ones(1, device="cuda:7")
        with self.assertRaises((RuntimeError, ValueError, IndexError)):
            torch.cuda.set_device(7)

    def test_cross_device_op_without_copy(self) -> None:
        a = torch.ones(2, device="cuda:0")
        b = torch.ones(2, device="cuda:1")
        with self.assertRaisesRegex(
            RuntimeError, r"(?i)same device|different devices|cuda:0.*cuda:1"
        ):
            _ = a + b
        with self.assertRaisesRegex(RuntimeError, r"(?i)same device|different devices|cpu"):
            _ = a + torch.ones(2)

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


if __name__ == "__main__":
    unittest.main(verbosity=2)
