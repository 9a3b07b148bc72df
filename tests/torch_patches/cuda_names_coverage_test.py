"""The coverage table of the 93 torch._C names, and that what it claims is in torch._C."""

from __future__ import annotations

import os
import sys
import unittest
from pathlib import Path

import torch

sys.path.insert(
    0, str(Path(__file__).resolve().parents[2] / "third_device" / "torch_cuda" / "tools")
)
import cuda_names_coverage

from torch_cuda.torch_c.coverage import PROVIDED, STUBS

C_NAMES = Path(sys.argv[1]) if len(sys.argv) > 1 else None


class Coverage(unittest.TestCase):
    def test_table(self) -> None:
        names = cuda_names_coverage.expected_names(C_NAMES)
        self.assertEqual(len(names), 93)
        table = cuda_names_coverage.table(names)
        self.assertEqual(len(table.splitlines()), 4 + 93)
        out = os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR")
        if out:
            Path(out, "cuda_names_coverage.md").write_text(table)
        print(table.splitlines()[0])

    def test_claimed_names_are_in_torch_C(self) -> None:
        for name in list(PROVIDED) + list(STUBS):
            if name == "_cuda_sleep":
                continue
            self.assertTrue(hasattr(torch._C, name), name)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
