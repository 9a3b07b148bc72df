"""The CUDA sanitizer (TORCH_CUDA_SANITIZER=1, stock's torch.cuda._sanitizer) on the CUDA
key: an unsynchronised cross-stream access raises CUDASanitizerErrors, and the ways user
code synchronises streams (wait_stream, events, stream and device synchronisation) are seen,
so a correct program runs clean. The sanitizer learns of synchronisation from the backend's
GPU trace (torch_core/csrc/device/gpu_trace.h); without it every synchronised use is a race.
"""

from __future__ import annotations

import unittest
from collections.abc import Callable

import torch
from torch.cuda import _sanitizer

N = 1 << 12


def write_on_side_stream(synchronise_before: Callable[[torch.cuda.Stream], None]) -> None:
    """A tensor written on the default stream, then on a side stream, then read on the
    default stream, with `synchronise_before(side)` ordering the side stream's write."""
    data = torch.ones(N, device="cuda")
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        data.mul_(2)
    synchronise_before(side)
    assert float(data.sum()) == 2 * N


class Sanitizer(unittest.TestCase):
    def test_enabled_by_the_environment(self) -> None:
        self.assertTrue(_sanitizer.cuda_sanitizer.enabled)

    def test_unsynchronised_read_is_a_race(self) -> None:
        with self.assertRaisesRegex(_sanitizer.CUDASanitizerErrors, "detected 1 errors") as caught:
            write_on_side_stream(lambda side: None)
        message = str(caught.exception.errors[0])
        self.assertIn("CSAN detected a possible data race", message)
        self.assertIn("aten::mul_", message)
        # The allocation was traced too: the report says where the tensor came from.
        self.assertIn("Tensor was allocated with stack trace", message)
        self.assertIn("write_on_side_stream", message)
        # The process stays usable, and the next correct program runs clean. The racy
        # write may still be queued, and its tensor's block free for reuse: let it land
        # first, as on a GPU.
        torch.cuda.synchronize()
        write_on_side_stream(lambda side: torch.cuda.current_stream().wait_stream(side))

    def test_wait_stream(self) -> None:
        write_on_side_stream(lambda side: torch.cuda.current_stream().wait_stream(side))

    def test_event_record_and_wait(self) -> None:
        def through_an_event(side: torch.cuda.Stream) -> None:
            done = torch.cuda.Event()
            done.record(side)
            torch.cuda.current_stream().wait_event(done)

        write_on_side_stream(through_an_event)

    def test_event_synchronize(self) -> None:
        def host_waits_for_event(side: torch.cuda.Stream) -> None:
            done = side.record_event()
            done.synchronize()

        write_on_side_stream(host_waits_for_event)

    def test_stream_and_device_synchronize(self) -> None:
        write_on_side_stream(lambda side: side.synchronize())
        write_on_side_stream(lambda side: torch.cuda.synchronize())


if __name__ == "__main__":
    unittest.main()
