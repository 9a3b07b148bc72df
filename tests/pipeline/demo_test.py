"""The README's main job ends in `tools/bazel run //third_device/torch_cuda:demo`: run it."""

from __future__ import annotations

import os
import subprocess
import sys
import unittest
from pathlib import Path

DEMO = Path(os.environ["TEST_SRCDIR"]) / os.environ["TEST_WORKSPACE"] / sys.argv[1]
CONFIGURED_ARCHS = os.environ["CONFIGURED_CUDA_ARCHS"].split(",")


def demo_environment() -> dict[str, str]:
    """The test's environment; under `bazel coverage`, with a coverage directory of the
    demo's own inside the test's: Bazel's stub of a py_binary writes and deletes an rc file
    in it, so two stubs sharing one break each other, and the merger reads subdirectories."""
    env = dict(os.environ)
    if "COVERAGE_DIR" in env:
        demo_dir = Path(env["COVERAGE_DIR"]) / "demo"
        demo_dir.mkdir(exist_ok=True)
        env["COVERAGE_DIR"] = str(demo_dir)
    return env


class DemoTest(unittest.TestCase):
    def test_demo_reports_build_and_devices(self):
        result = subprocess.run(
            [str(DEMO)], capture_output=True, text=True, check=False, env=demo_environment()
        )
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        lines = result.stdout.splitlines()
        self.assertIn(f"kernel architectures  {', '.join(CONFIGURED_ARCHS)}", lines)
        self.assertIn("dispatch key          cuda", lines)
        devices = next(line for line in lines if line.startswith(("CUDA devices", "cuda:0")))
        if devices.startswith("CUDA devices"):
            # No GPU: the count is 0 and cudart's reason is given; the simulated variant trains.
            self.assertRegex(devices, r"^CUDA devices +0 \(cuda\w+: .+\)$")
            self.assertIn(
                "training step         GPT-2-shaped decoder on the simulated variant, 3 steps",
                lines,
            )
        else:
            self.assertIn("add kernel max abs error 0", devices)
            self.assertIn(
                "training step         GPT-2-shaped decoder on the real variant, 3 steps", lines
            )
        # The losses against the CPU's (the exit code says they agree) and no fallback.
        table = lines.index("step  loss (cpu)  loss (cuda)")
        steps = [line.split()[0] for line in lines[table + 1 : table + 4]]
        self.assertEqual(steps, ["1", "2", "3"])
        self.assertIn("CPU fallback calls    0", lines)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
