"""The profiler's device side: the legacy profiler with use_device, and on the CUDA key
torch.profiler with ProfilerActivity.CUDA, time each operator's device work through the
backend's events on the current stream, as stock CUDA torch does without CUPTI, instead of
warning at every operator that the device is "not enabled"."""

import json
import tempfile
import unittest
from pathlib import Path

import torch
from backend import DEVICE, main, mod, run_in_child, slow_work
from torch.profiler import ProfilerActivity, profile, record_function

ACTIVITY = ProfilerActivity.CUDA if DEVICE == "cuda" else ProfilerActivity.PrivateUse1
BUSY_MS = 50.0


def device_total_us(prof: profile, name: str) -> float:
    (event,) = [e for e in prof.key_averages() if e.key == name]
    return float(event.device_time_total)


class Profiler(unittest.TestCase):
    def setUp(self) -> None:
        # The profiled matmul once before: a first one makes the GEMM library's handle and
        # workspace, and a first kernel of a shape loads its module (CUDA's lazy loading),
        # on the host while the device waits; inside a profiled mm that gap counts as its
        # device time (on an H100: 125 ms, and 32 ms after an 8 x 8 warm-up).
        x = torch.ones(64, 64, device=DEVICE)
        self.assertEqual((x @ x).shape, (64, 64))
        mod.synchronize()

    def check_device_time(self, prof: object) -> None:
        # The range's launch returns at once; its device time is the stream's busy time.
        busy = device_total_us(prof, "busy")
        self.assertGreater(busy, 0.6 * BUSY_MS * 1000)
        self.assertGreater(device_total_us(prof, "aten::mm"), 0.0)
        # The mm's own time, not the busy work queued before it. (Not a fixed bound: on a
        # loaded machine a simulated 64 x 64 mm took 32 ms.)
        self.assertLess(device_total_us(prof, "aten::mm"), busy)

    def profiled_work(self) -> None:
        x = torch.randn(64, 64, device=DEVICE)
        with record_function("busy"):
            slow_work(BUSY_MS)
        self.assertEqual((x @ x).shape, (64, 64))
        mod.synchronize()

    def test_legacy_profiler_times_the_queued_work(self) -> None:
        with torch.autograd.profiler.profile(use_device=DEVICE) as prof:
            self.profiled_work()
        self.check_device_time(prof)

    @unittest.skipIf(
        DEVICE != "cuda",
        "torch.profiler times a PrivateUse1 device only through a Kineto plugin "
        "(KINETO_PRIVATEUSE1), which a CPU wheel cannot load; the legacy profiler's case covers it",
    )
    def test_torch_profiler_times_the_queued_work(self) -> None:
        with profile(activities=[ProfilerActivity.CPU, ACTIVITY]) as prof:
            self.profiled_work()
        self.check_device_time(prof)

    def test_trace_exports(self) -> None:
        x = torch.ones(8, device=DEVICE)
        with profile(activities=[ProfilerActivity.CPU, ACTIVITY]) as prof:
            (x + 1).sum()
        with tempfile.TemporaryDirectory() as directory:
            path = Path(directory) / "trace.json"
            prof.export_chrome_trace(str(path))
            names = {event.get("name") for event in json.loads(path.read_text())["traceEvents"]}
        self.assertIn("aten::add", names)

    def test_no_not_enabled_warnings(self) -> None:
        result = run_in_child(
            "from torch.profiler import profile, ProfilerActivity\n"
            f"x = torch.ones(4, device='{DEVICE}')\n"
            f"with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.{ACTIVITY.name}]):\n"
            "    (x * 2).sum().item()\n"
            "print('done')\n"
        )
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.strip(), "done")
        self.assertNotIn("not enabled", result.stderr)
        self.assertNotIn("Failed to record", result.stderr)


if __name__ == "__main__":
    main()
