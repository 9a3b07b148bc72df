"""CUDA tensors shared with spawned processes through torch.multiprocessing (CUDA IPC), as
stock CUDA torch shares them: the consumer maps the producer's memory (writes are seen both
ways), waits for the work the producer queued on it before sending (and for an
interprocess torch.cuda.Event sent on its own), holds the producer's
block until it lets go (torch.cuda.ipc_collect then frees it), and cannot send a tensor it
received. On the simulated variant the device memory is a shared-memory file; on the real
one the same calls are cudaIpc*.
"""

from __future__ import annotations

import gc
import queue
import subprocess
import sys
import tempfile
import unittest
from multiprocessing.reduction import ForkingPickler
from pathlib import Path

import torch
import torch.multiprocessing as mp

TIMEOUT_S = 40  # a consumer that died (or a send that failed) shows up as a timeout

# A producer that shares a device tensor with a consumer and lets it go while the consumer
# still holds it (its block waits in limbo), then the consumer lets go and the producer
# exits without torch.cuda.ipc_collect(). It prints the shared-memory files that the send
# made (the consumer's reference counter, /dev/shm/torch_core_<pid>_<n>): the pid is its
# namespace's, which a sandboxed test shares with others, hence the before and after.
_PRODUCER_SCRIPT = f"""
import os
from pathlib import Path

import torch
import torch.multiprocessing as mp


def consumer(connection):
    tensor = connection.recv()
    connection.send(float(tensor.sum()))
    connection.recv()
    del tensor
    connection.send("dropped")


def counter_files():
    return set(Path("/dev/shm").glob(f"torch_core_{{os.getpid()}}_*"))


if __name__ == "__main__":
    context = mp.get_context("spawn")
    ours, theirs = context.Pipe()
    process = context.Process(target=consumer, args=(theirs,))
    process.start()
    tensor = torch.ones(8, device="cuda")
    before = counter_files()
    ours.send(tensor)  # pickled here, unlike a queue's put
    made = counter_files() - before
    assert ours.poll({TIMEOUT_S}) and ours.recv() == 8.0
    del tensor
    ours.send("drop")
    assert ours.poll({TIMEOUT_S}) and ours.recv() == "dropped"
    process.join({TIMEOUT_S})
    print(*sorted(made))
"""


def _consumer(requests: mp.Queue, replies: mp.Queue) -> None:
    """Runs requests (command, tensor, argument) from the parent until told to stop."""
    held: list[torch.Tensor] = []
    while True:
        command, tensor, argument = requests.get()
        try:
            if command == "stop":
                return
            if command == "describe":
                replies.put((str(tensor.device), tensor.tolist(), tensor.is_contiguous()))
            elif command == "scale":
                tensor.mul_(argument)
                torch.cuda.synchronize()
                replies.put("scaled")
            elif command == "sum":
                replies.put(float(tensor.sum()))
            elif command == "hold":
                held.append(tensor)
                replies.put(tensor.untyped_storage().data_ptr())
            elif command == "drop":
                held.clear()
                del tensor
                gc.collect()
                replies.put("dropped")
            elif command == "wait_sum":  # the argument: an event the parent recorded
                argument.wait()
                replies.put((float(held[-1].sum()), argument.query()))
            elif command == "resend":
                ForkingPickler.dumps(tensor)  # what a queue's put does with it: refused
                replies.put("sent")
        except Exception as error:
            replies.put(f"{type(error).__name__}: {error}")


class SharedTensors(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        context = mp.get_context("spawn")
        cls.requests = context.Queue()
        cls.replies = context.Queue()
        cls.consumer = context.Process(target=_consumer, args=(cls.requests, cls.replies))
        cls.consumer.start()

    @classmethod
    def tearDownClass(cls) -> None:
        cls.requests.put(("stop", None, None))
        cls.consumer.join(TIMEOUT_S)
        if cls.consumer.is_alive():
            cls.consumer.kill()

    def ask(self, command: str, tensor: torch.Tensor | None, argument: object = None) -> object:
        self.requests.put((command, tensor, argument))
        try:
            return self.replies.get(timeout=TIMEOUT_S)
        except queue.Empty:
            self.fail(f"no reply to {command!r}: consumer exit code {self.consumer.exitcode}")

    def test_views_are_read_and_written_in_place(self) -> None:
        base = torch.arange(24.0, device="cuda")
        view = base.view(4, 6)[1:3, 2:5].t()  # an offset into the block, not contiguous
        device, values, contiguous = self.ask("describe", view)
        self.assertEqual((device, values, contiguous), ("cuda:0", view.tolist(), False))
        self.assertEqual(self.ask("scale", view, 10), "scaled")
        expected = torch.arange(24.0).view(4, 6)
        expected[1:3, 2:5] *= 10
        self.assertEqual(base.view(4, 6).tolist(), expected.tolist())
        integers = torch.tensor([[1, -2], [3, 4]], dtype=torch.int64, device="cuda")
        self.assertEqual(self.ask("describe", integers)[1], [[1, -2], [3, 4]])

    def test_other_device(self) -> None:
        if torch.cuda.device_count() < 2:
            self.skipTest("needs two devices")
        values = torch.arange(5, dtype=torch.int32, device="cuda:1")
        self.assertEqual(self.ask("describe", values)[:2], ("cuda:1", [0, 1, 2, 3, 4]))

    def test_consumer_waits_for_work_queued_before_sending(self) -> None:
        tensor = torch.zeros(1 << 16, device="cuda")
        torch.cuda._sleep(200 * 2_000_000)  # ~200 ms of device work before the fill
        tensor.fill_(3.0)
        self.assertEqual(self.ask("sum", tensor), 3.0 * (1 << 16))  # sent without a sync

    def test_producer_block_held_until_consumer_lets_go(self) -> None:
        torch.cuda.synchronize()
        torch.cuda.ipc_collect()
        baseline = torch.cuda.memory_allocated()
        tensor = torch.ones(1 << 18, device="cuda")
        first = self.ask("hold", tensor)
        self.assertEqual(self.ask("hold", tensor), first)  # the consumer's cache: one storage
        del tensor
        gc.collect()
        torch.cuda.ipc_collect()
        self.assertEqual(torch.cuda.memory_allocated() - baseline, 4 << 18)  # still held
        self.assertEqual(self.ask("drop", None), "dropped")
        torch.cuda.ipc_collect()
        self.assertEqual(torch.cuda.memory_allocated(), baseline)

    def test_out_of_memory_collects_what_consumers_let_go(self) -> None:
        # As stock's free-memory callback: a full device first frees the blocks that no
        # consumer holds any more, without an ipc_collect() call.
        torch.cuda.ipc_collect()
        tensor = torch.ones(10 << 18, device="cuda")  # 10 MiB
        self.ask("hold", tensor)
        del tensor
        gc.collect()  # in limbo: the consumer still holds it
        self.assertEqual(self.ask("drop", None), "dropped")
        total = torch.cuda.get_device_properties(0).total_memory
        cap = torch.cuda.memory_reserved() + (4 << 20)
        torch.cuda.set_per_process_memory_fraction(cap / total)
        try:
            again = torch.empty(10 << 18, device="cuda")  # fits only where the held block was
            self.assertEqual(again.numel(), 10 << 18)
        finally:
            torch.cuda.set_per_process_memory_fraction(1.0)

    def test_sent_event_orders_the_consumer(self) -> None:
        # torch.cuda.Event(interprocess=True) on a queue: the consumer's stream waits for
        # what the producer queued before recording it.
        tensor = torch.zeros(1 << 16, device="cuda")
        self.ask("hold", tensor)
        event = torch.cuda.Event(interprocess=True)
        torch.cuda._sleep(200 * 2_000_000)  # ~200 ms of device work before the fill
        tensor.fill_(4.0)
        event.record()
        self.assertEqual(self.ask("wait_sum", None, event), (4.0 * (1 << 16), True))
        self.assertEqual(self.ask("drop", None), "dropped")
        with self.assertRaisesRegex(RuntimeError, "interprocess=True"):
            torch.cuda.Event().ipc_handle()
        with self.assertRaisesRegex(RuntimeError, "timing disabled"):
            torch.cuda.Event(enable_timing=True, interprocess=True)

    def test_received_tensor_is_not_sent_on(self) -> None:
        reply = self.ask("resend", torch.ones(3, device="cuda"))
        self.assertIn("Attempted to send CUDA tensor received from another process", reply)

    def test_empty_tensor(self) -> None:
        self.assertEqual(self.ask("describe", torch.empty(0, device="cuda"))[:2], ("cuda:0", []))


class SharedMemoryFiles(unittest.TestCase):
    def test_producer_leaves_no_counter_file_behind(self) -> None:
        # Sharing a device tensor hands the consumer a reference counter in a shared-memory
        # file; once every consumer is done with it, it goes at exit, as stock's (a storage
        # of the producer still alive at exit keeps it, in stock too).
        with tempfile.TemporaryDirectory() as workdir:
            script = Path(workdir) / "producer.py"
            script.write_text(_PRODUCER_SCRIPT)
            result = subprocess.run([sys.executable, str(script)], capture_output=True,
                                    text=True, timeout=3 * TIMEOUT_S, check=False)
        self.assertEqual(result.returncode, 0, result.stderr)
        made = [Path(name) for name in result.stdout.split()]
        self.assertEqual(len(made), 1, f"one counter file while sharing: {result.stdout!r}")
        self.assertFalse(made[0].exists(), f"{made[0]} outlived the producer")
        self.assertNotIn("[W]", result.stderr)  # no consumer held memory at exit


if __name__ == "__main__":
    unittest.main()
