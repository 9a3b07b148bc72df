"""torch.cuda.nvtx on the CUDA key: NVTX3's calls reach a tool attached as a profiler is
(NVTX_INJECTION64_PATH, here nvtx_recorder.c, which logs them), with the tool's return
values; a device range starts when its stream reaches it; with no tool attached the calls
return what NVTX returns then. Each case runs in a fresh interpreter: NVTX reads the
variable once, at its first call.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from child_python import run_python

RECORDER = Path(sys.argv.pop(1)).resolve() if len(sys.argv) > 1 else None

USER_CODE = """
import torch
nvtx = torch.cuda.nvtx
levels = [nvtx.range_push("outer"), nvtx.range_push("inner"), nvtx.range_pop()]
nvtx.mark("here")
with nvtx.range("ctx {}", 7):
    pass
started = nvtx.range_start("started")
nvtx.range_end(started)
levels.append(nvtx.range_pop())
stream = torch.cuda.current_stream()
torch.cuda._sleep(50_000_000)  # the device range below starts only after this
handle = nvtx._device_range_start("on-stream", stream.cuda_stream)
nvtx.mark("enqueued")
nvtx._device_range_end(handle, stream.cuda_stream)
torch.cuda.synchronize()
print(levels, started)
"""


class Nvtx(unittest.TestCase):
    @unittest.skipIf(RECORDER is None, "needs the recorder library's path as the first argument")
    def test_calls_reach_an_attached_tool(self) -> None:
        with tempfile.TemporaryDirectory() as directory:
            log = Path(directory) / "nvtx.log"
            result = run_python(
                USER_CODE, NVTX_INJECTION64_PATH=str(RECORDER), NVTX_RECORDER_LOG=str(log)
            )
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertEqual(result.stdout.split(), ["[0,", "1,", "1,", "0]", "1"])
            self.assertEqual(
                log.read_text().splitlines(),
                [
                    "push outer 0",
                    "push inner 0",
                    "pop - 0",
                    "mark here 0",
                    "push ctx 7 0",
                    "pop - 0",
                    "start started 1",
                    "end - 1",
                    "pop - 0",
                    "mark enqueued 0",  # the host went on while the stream slept
                    "start on-stream 2",
                    "end - 2",
                ],
            )

    @unittest.skipIf(RECORDER is None, "needs the recorder library's path as the first argument")
    def test_emit_nvtx_ranges_each_operator(self) -> None:
        code = (
            "import torch\n"
            "x = torch.ones(4, device='cuda')\n"
            "with torch.autograd.profiler.emit_nvtx():\n"
            "    x.mul_(2)\n"
        )
        with tempfile.TemporaryDirectory() as directory:
            log = Path(directory) / "nvtx.log"
            result = run_python(
                code, NVTX_INJECTION64_PATH=str(RECORDER), NVTX_RECORDER_LOG=str(log)
            )
            self.assertEqual(result.returncode, 0, result.stderr)
            lines = log.read_text().splitlines()
        pushes = [line for line in lines if line.startswith("push aten::mul_")]
        self.assertEqual(len(pushes), 1, lines)
        self.assertEqual(lines[lines.index(pushes[0]) + 1], "pop - 0", lines)

    def test_without_a_tool_calls_do_nothing(self) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("NVTX_INJECTION")}
        result = subprocess.run(
            [sys.executable, "-c", USER_CODE], env=env, capture_output=True, text=True, check=False
        )
        self.assertEqual(result.returncode, 0, result.stderr)
        # NVTX_NO_PUSH_POP_TRACKING (-2) for pushes and pops, range id 0.
        self.assertEqual(result.stdout.split(), ["[-2,", "-2,", "-2,", "-2]", "0"])


if __name__ == "__main__":
    unittest.main()
