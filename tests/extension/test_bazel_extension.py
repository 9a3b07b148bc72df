"""The example extension built by the Bazel macro (torch_cuda_extension), simulated
variant: loaded with torch.ops.load_library from its runfiles path."""

from __future__ import annotations

import os
import unittest

import bias_gelu
import bias_gelu_checks

bias_gelu.load(os.path.abspath(os.environ["BIAS_GELU_LIBRARY"]))


class BazelBuiltExtension(bias_gelu_checks.BiasGeluChecks):
    pass


if __name__ == "__main__":
    unittest.main()
