"""toolchains/cuda/nvcc_unused_inputs.sh, with a stand-in nvcc that writes the dependency
file a real one would: the headers it lists as unused are exactly those the compile did
not read, whatever the dependency file's spelling (continuation lines, "dir/../x.h"), and a
failing compile fails the action without a list."""

from __future__ import annotations

import os
import subprocess
import tempfile
import textwrap
import unittest
from pathlib import Path

WRAPPER = Path(os.environ["TEST_SRCDIR"]) / os.environ["TEST_WORKSPACE"] / os.environ["WRAPPER"]

# Writes $DEPS_CONTENT to the file after -MF, or fails as a compile error would.
FAKE_NVCC = textwrap.dedent(
    """\
    #!/bin/bash
    [[ -n ${FAIL:-} ]] && { echo "error: expected a ';'" >&2; exit 2; }
    while [[ $# -gt 0 ]]; do
      if [[ $1 == -MF ]]; then printf '%s' "$DEPS_CONTENT" >"$2"; fi
      shift
    done
    """
)

HEADERS = [
    "torch_core/csrc/runtime/device_runtime.h",
    "torch_core/csrc/runtime/runtime_handles.h",
    "torch_core/csrc/aten/engine/sort_call.h",
    "bazel-out/k8-fastbuild/bin/toolchains/cuda/build_info.h",
]


class UnusedInputsTest(unittest.TestCase):
    def run_wrapper(self, deps_content: str, fail: bool = False) -> tuple[int, Path]:
        work = Path(tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR")))
        nvcc = work / "nvcc"
        nvcc.write_text(FAKE_NVCC)
        nvcc.chmod(0o755)
        headers = work / "headers"
        headers.write_text("".join(h + "\n" for h in HEADERS))
        unused = work / "unused"
        env = dict(os.environ, DEPS_CONTENT=deps_content, FAIL="1" if fail else "")
        result = subprocess.run(
            [
                str(WRAPPER),
                str(nvcc),
                str(headers),
                str(work / "deps.d"),
                str(unused),
                "-c",
                "x.cu",
                "-o",
                "x.o",
            ],
            env=env,
            capture_output=True,
            text=True,
        )
        return result.returncode, unused

    def test_lists_the_headers_the_compile_did_not_read(self) -> None:
        deps = (
            "x.o : x.cu \\\n"
            "    torch_core/csrc/runtime/runtime_handles.h \\\n"
            "    external/_main~hermetic_deps~cuda/nvidia/cu13/include/cuda_runtime.h\n"
        )
        code, unused = self.run_wrapper(deps)
        self.assertEqual(code, 0)
        self.assertEqual(
            unused.read_text().splitlines(),
            [HEADERS[0], HEADERS[2], HEADERS[3]],
        )

    def test_a_header_read_under_another_spelling_is_kept(self) -> None:
        deps = (
            "x.o: x.cu torch_core/csrc/aten/../runtime/device_runtime.h \\\n"
            "  torch_core/csrc/aten/engine/sort_call.h bazel-out/k8-fastbuild/bin/toolchains/"
            "cuda/build_info.h torch_core/csrc/runtime/runtime_handles.h"
        )
        code, unused = self.run_wrapper(deps)
        self.assertEqual(code, 0)
        self.assertEqual(unused.read_text(), "")

    def test_a_failing_compile_fails_the_action(self) -> None:
        code, unused = self.run_wrapper("", fail=True)
        self.assertEqual(code, 2)
        self.assertFalse(unused.exists())


if __name__ == "__main__":
    unittest.main()
