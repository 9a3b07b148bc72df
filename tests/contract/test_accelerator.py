"""torch.accelerator sees the device."""

import unittest

import torch
from backend import DEVICE, device, main, mod


def stream_key(stream: torch.Stream) -> tuple[torch.device, int]:
    # torch.accelerator hands out torch.Stream and a device module its own subclass of it
    # (stock torch.cuda.Stream's __eq__ is False for a plain torch.Stream), so streams
    # compare by what identifies them.
    return stream.device, stream.stream_id


class Accelerator(unittest.TestCase):
    def test_current_accelerator(self) -> None:
        self.assertTrue(torch.accelerator.is_available())
        self.assertEqual(torch.accelerator.current_accelerator().type, DEVICE)
        self.assertEqual(torch.accelerator.device_count(), mod.device_count())

    def test_device_index(self) -> None:
        previous = torch.accelerator.current_device_index()
        last = mod.device_count() - 1
        torch.accelerator.set_device_index(last)
        try:
            self.assertEqual(mod.current_device(), last)
            self.assertEqual(torch.accelerator.current_device_index(), last)
        finally:
            torch.accelerator.set_device_index(previous)

    def test_streams_through_accelerator(self) -> None:
        s = mod.Stream()
        torch.accelerator.set_stream(s)
        try:
            self.assertEqual(stream_key(torch.accelerator.current_stream()), stream_key(s))
            self.assertEqual(stream_key(mod.current_stream()), stream_key(s))
        finally:
            torch.accelerator.set_stream(mod.default_stream())
        torch.accelerator.synchronize()

    def test_memory_calls(self) -> None:
        before = torch.accelerator.memory_allocated()
        x = torch.empty(1 << 20, dtype=torch.uint8, device=device(mod.current_device()))
        self.assertGreaterEqual(torch.accelerator.memory_allocated(), before + (1 << 20))
        self.assertGreaterEqual(torch.accelerator.max_memory_allocated(), before + (1 << 20))
        del x
        self.assertEqual(torch.accelerator.memory_allocated(), before)


if __name__ == "__main__":
    main()
