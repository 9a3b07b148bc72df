"""torch.cuda.tunable (TunableOp) on the CUDA key: the settings, online tuning of the GEMMs
with stock's signatures, the results file written at exit and read back (its validators
checked), the untuned-GEMM log, and stock's own offline tuning reading that log.

Each case runs in a process of its own in a temporary directory: TunableOp's settings are
process-wide and its files are written relative to the working directory.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import torch

PRELUDE = "import torch, torch.cuda.tunable as tunable\n"
# 64x32 @ 32x16, row-major: cuBLAS computes C^T = B^T A^T, so m=16, n=64, k=32.
MM = "a = torch.randn(64, 32, device='cuda'); b = torch.randn(32, 16, device='cuda')\n"
MM_OP, MM_PARAMS = "GemmTunableOp_float_NN", "nn_16_64_32_ld_16_32_16"
BMM = "x = torch.randn(3, 8, 5, device='cuda'); y = torch.randn(3, 5, 4, device='cuda')\n"
BMM_OP, BMM_PARAMS = "GemmStridedBatchedTunableOp_float_NN", "nn_4_8_5_B_3_ld_4_5_4"


class Tunable(unittest.TestCase):
    def setUp(self) -> None:
        self.directory = Path(tempfile.mkdtemp(prefix="tunable."))

    def run_python(self, code: str, **env: str) -> list[str]:
        result = subprocess.run(
            [sys.executable, "-c", PRELUDE + code],
            cwd=self.directory,
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            check=False,
        )
        self.assertEqual(result.returncode, 0, result.stderr)
        return result.stdout.splitlines()

    def test_settings_round_trip(self) -> None:
        lines = self.run_python(
            "print(tunable.is_enabled(), tunable.tuning_is_enabled(),"
            " tunable.record_untuned_is_enabled())\n"
            "tunable.enable(True); tunable.tuning_enable(False); tunable.record_untuned_enable()\n"
            "tunable.set_max_tuning_duration(7); tunable.set_max_tuning_iterations(3)\n"
            "tunable.set_rotating_buffer_size(8)\n"
            "print(tunable.is_enabled(), tunable.tuning_is_enabled(),"
            " tunable.record_untuned_is_enabled())\n"
            "print(tunable.get_max_tuning_duration(), tunable.get_max_tuning_iterations(),"
            " tunable.get_rotating_buffer_size())\n"
            "print(tunable.get_filename())\n"
            "torch.cuda.set_device(torch.cuda.device_count() - 1)\n"
            "tunable.set_filename('mine.csv', True)\n"
            "print(tunable.get_filename())\n"
            "print(dict(tunable.get_validators())['PT_VERSION'])\n"
        )
        self.assertEqual(lines[0], "False True False")
        self.assertEqual(lines[1], "True False True")
        self.assertEqual(lines[2], f"7 3 {8 << 20}")
        self.assertEqual(lines[3], "tunableop_results0.csv")
        self.assertEqual(lines[4], f"mine{torch.cuda.device_count() - 1}.csv")
        self.assertEqual(lines[5], torch.__version__.split("+")[0])

    def test_online_tuning_records_stock_signatures_and_writes_the_file_at_exit(self) -> None:
        lines = self.run_python(
            "tunable.enable(True); tunable.set_filename('results.csv')\n"
            + MM
            + BMM
            + "c = torch.ones(64, 16, device='cuda')\n"
            "expected = (torch.ones(64, 16) + a.cpu() @ b.cpu())\n"
            "c.addmm_(a, b)  # beta=1: timed runs must not accumulate into c\n"
            "torch.testing.assert_close(c.cpu(), expected)\n"
            "torch.testing.assert_close(torch.bmm(x, y).cpu(), torch.bmm(x.cpu(), y.cpu()))\n"
            "for row in tunable.get_results(): print(*row[:3], row[3] > 0)\n"
        )
        self.assertIn(f"{MM_OP} {MM_PARAMS} Default True", lines)
        self.assertIn(f"{BMM_OP} {BMM_PARAMS} Default True", lines)
        written = (self.directory / "results.csv").read_text().splitlines()
        self.assertTrue(written[0].startswith("Validator,PT_VERSION,"), written)
        self.assertTrue(any(line.startswith(f"{MM_OP},{MM_PARAMS},Default,") for line in written))

        # Read back by a process that does not tune: the results are used as they are.
        lines = self.run_python(
            "tunable.enable(True); tunable.tuning_enable(False)\n"
            "print(tunable.read_file('results.csv'))\n"
            "print(len(tunable.get_results()))\n"
        )
        self.assertEqual(lines, ["True", "2"])

    def test_file_from_other_software_is_refused(self) -> None:
        (self.directory / "old.csv").write_text(
            f"Validator,PT_VERSION,1.0.0\n{MM_OP},{MM_PARAMS},Default,0.5\n"
        )
        lines = self.run_python(
            "import warnings\n"
            "with warnings.catch_warnings(record=True) as caught:\n"
            "    warnings.simplefilter('always')\n"
            "    print(tunable.read_file('old.csv'), len(tunable.get_results()))\n"
            "print(str(caught[0].message))\n"
        )
        self.assertEqual(lines[0], "False 0")
        self.assertIn("PT_VERSION 1.0.0", lines[1])

    def test_untuned_log_feeds_stock_offline_tuning(self) -> None:
        self.run_python(
            "tunable.enable(True); tunable.tuning_enable(False); tunable.record_untuned_enable()\n"
            + MM
            + BMM
            + "torch.mm(a, b); torch.mm(a, b); torch.bmm(x, y)\n"
            "print(tunable.get_results())\n"
        )
        untuned = (self.directory / "tunableop_untuned0.csv").read_text().splitlines()
        expected = [f"{MM_OP},{MM_PARAMS}", f"{BMM_OP},{BMM_PARAMS}"]
        self.assertEqual(sorted(untuned), sorted(expected))
        # Stock's tune_gemm_in_file parses our log, rebuilds the GEMMs and tunes them.
        lines = self.run_python(
            "tunable.enable(True)\n"
            "tunable.tune_gemm_in_file('tunableop_untuned0.csv')\n"
            "for row in tunable.get_results(): print(*row[:3])\n"
        )
        tuned = [f"{MM_OP} {MM_PARAMS} Default", f"{BMM_OP} {BMM_PARAMS} Default"]
        self.assertEqual(sorted(lines), sorted(tuned))


if __name__ == "__main__":
    unittest.main(verbosity=2)
