"""The base case of the CUDA key's cuDNN tests: each test seeded and run with the fallback
policy 'error' (an operator without a native kernel on the CUDA key fails the test instead
of running on the CPU) and, where a case asks (`tf32_off`), cuDNN's TF32 off, as stock's
tests turn it off to compare float32 with the CPU."""

from __future__ import annotations

import unittest

import torch

import torch_cuda


class NoFallbackCase(unittest.TestCase):
    tf32_off = False

    def setUp(self) -> None:
        torch.manual_seed(0)
        torch_cuda.set_fallback_policy("error")
        self._tf32 = torch.backends.cudnn.allow_tf32
        if self.tf32_off:
            torch.backends.cudnn.allow_tf32 = False

    def tearDown(self) -> None:
        torch_cuda.set_fallback_policy("allow")
        torch.backends.cudnn.allow_tf32 = self._tf32
