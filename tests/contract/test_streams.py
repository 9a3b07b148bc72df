"""Streams and events: ordering, cross-stream waits, queries, timing, and the GPU trace
of them."""

import importlib
import unittest

import torch
from backend import DEVICE, device, main, mod, requires_devices, slow_work

N = 1 << 16


class Streams(unittest.TestCase):
    def test_default_and_current_stream(self) -> None:
        default = mod.default_stream()
        self.assertEqual(default.stream_id, 0)
        self.assertEqual(mod.current_stream(), default)
        self.assertEqual(default.device, device(mod.current_device()))

    def test_stream_context(self) -> None:
        s = mod.Stream()
        self.assertNotEqual(s, mod.default_stream())
        with mod.stream(s):
            self.assertEqual(mod.current_stream(), s)
        self.assertEqual(mod.current_stream(), mod.default_stream())

    def test_work_runs_in_stream_order(self) -> None:
        s = mod.Stream()
        x = torch.zeros(N, device=DEVICE)
        mod.synchronize()
        with mod.stream(s):
            slow_work(300)
            x.fill_(1)
        self.assertFalse(s.query(), "the stream should still be busy with the slow item")
        s.synchronize()
        self.assertTrue(s.query())
        self.assertTrue(bool((x.cpu() == 1).all()))

    def test_wait_stream_orders_two_streams(self) -> None:
        producer, consumer = mod.Stream(), mod.Stream()
        x = torch.zeros(N, device=DEVICE)
        mod.synchronize()
        with mod.stream(producer):
            slow_work(300)
            x.fill_(2)
        consumer.wait_stream(producer)
        with mod.stream(consumer):
            y = x * 3
        consumer.synchronize()
        self.assertTrue(bool((y.cpu() == 6).all()), "the consumer ran before the producer's fill")

    def test_event_record_wait_query(self) -> None:
        s = mod.Stream()
        event = mod.Event()
        self.assertIsInstance(event, mod.Event)
        self.assertTrue(event.query(), "an event never recorded is complete")
        with mod.stream(s):
            slow_work(300)
        event.record(s)
        self.assertFalse(event.query())
        other = mod.Stream()
        other.wait_event(event)
        event.synchronize()
        self.assertTrue(event.query())
        other.synchronize()

    def test_elapsed_time(self) -> None:
        start, end = mod.Event(enable_timing=True), mod.Event(enable_timing=True)
        start.record()
        slow_work(50)
        end.record()
        end.synchronize()
        elapsed = start.elapsed_time(end)
        self.assertGreater(elapsed, 0)
        self.assertGreaterEqual(elapsed, 40)

    def test_record_stream_keeps_memory_for_the_other_stream(self) -> None:
        s = mod.Stream()
        x = torch.ones(N, device=DEVICE)
        s.wait_stream(mod.current_stream())
        with mod.stream(s):
            slow_work(100)
            y = x * 5
        x.record_stream(s)
        del x
        z = torch.zeros(N, device=DEVICE)  # may not reuse x's block while s still reads it
        s.synchronize()
        self.assertTrue(bool((y.cpu() == 5).all()))
        self.assertTrue(bool((z.cpu() == 0).all()))

    @requires_devices(2)
    def test_streams_are_per_device(self) -> None:
        s1 = mod.Stream(device=1)
        self.assertEqual(s1.device, device(1))
        with mod.stream(s1):
            self.assertEqual(mod.current_device(), 1)
            self.assertEqual(mod.current_stream(1), s1)
            t = torch.ones(4, device=DEVICE)
        self.assertEqual(t.device, device(1))
        self.assertEqual(mod.current_stream(1), mod.default_stream(1))

    def test_priority_streams(self) -> None:
        high = mod.Stream(priority=-1)
        low = mod.Stream(priority=0)
        self.assertNotEqual(high, low)
        with mod.stream(high):
            x = torch.ones(8, device=DEVICE) + 1
        high.synchronize()
        self.assertTrue(bool((x.cpu() == 2).all()))


class GpuTrace(unittest.TestCase):
    """torch's GPU trace (what torch.cuda._sanitizer listens to): the backend reports
    allocations, event records and waits, and synchronisations to the device module's
    _gpu_trace callbacks."""

    def test_backend_reports_to_the_device_modules_gpu_trace(self) -> None:
        seen: list[tuple[object, ...]] = []
        listening = True

        def note(kind: str) -> object:
            return lambda *args: seen.append((kind, *args)) if listening else None

        torch._C._activate_gpu_trace()  # once per process; nothing listens elsewhere
        trace = importlib.import_module(f"torch.{DEVICE}._gpu_trace")
        trace.register_callback_for_memory_allocation(note("alloc"))
        trace.register_callback_for_memory_deallocation(note("free"))
        trace.register_callback_for_event_record(note("record"))
        trace.register_callback_for_event_wait(note("wait"))
        trace.register_callback_for_stream_synchronization(note("stream sync"))
        trace.register_callback_for_device_synchronization(note("device sync"))
        producer, consumer = mod.Stream(), mod.Stream()
        x = torch.empty(N, device=DEVICE)
        address = x.data_ptr()
        consumer.wait_stream(producer)
        consumer.synchronize()
        mod.synchronize()
        del x
        listening = False

        kinds = [entry[0] for entry in seen]
        self.assertIn(("alloc", address), seen)
        self.assertIn(("free", address), seen)
        records = [entry for entry in seen if entry[0] == "record"]
        waits = [entry for entry in seen if entry[0] == "wait"]
        self.assertEqual(len(records), 1)
        self.assertEqual(len(waits), 1)
        self.assertEqual(records[0][1], waits[0][1], "the event recorded is the one waited on")
        self.assertNotEqual(records[0][2], waits[0][2], "recorded on one stream, waited on another")
        self.assertIn("stream sync", kinds)
        self.assertIn("device sync", kinds)


if __name__ == "__main__":
    main()
