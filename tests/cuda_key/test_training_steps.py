"""The op layer's acceptance: full training steps of real models on the CUDA key
(simulated torch_cuda) match a CPU run with the same seed, with TORCH_CUDA_FALLBACK=error
(set in BUILD), so any operator without a native kernel fails the test, convolution
included (cuDNN's, as stock's CUDA build with cuDNN runs it)."""

from __future__ import annotations

import unittest

import torch
import training_models as models

import torch_cuda


class TrainingSteps(unittest.TestCase):
    def setUp(self) -> None:
        self.assertEqual(torch_cuda.get_fallback_policy(), "error")
        torch_cuda.reset_fallback_counts()

    def check_mlp(self, optimizer: str, foreach: bool, fused: bool) -> None:
        masks: list[torch.Tensor] = []
        cuda = models.mlp_step("cuda", optimizer, foreach, fused, masks, replay=False)
        cpu = models.mlp_step("cpu", optimizer, foreach, fused, masks, replay=True)
        torch.testing.assert_close(cuda, cpu, rtol=1e-5, atol=1e-6)
        # The masks came from the CUDA generator: about p of the units dropped, fresh
        # numbers at each step.
        self.assertEqual(len(masks), 2)
        for mask in masks:
            self.assertAlmostEqual(1 - mask.float().mean().item(), 0.25, delta=0.1)
        self.assertFalse(torch.equal(masks[0], masks[1]))

    def test_mlp_adam_and_adamw_foreach(self) -> None:
        for optimizer in ("adam", "adamw"):
            with self.subTest(optimizer=optimizer):
                self.check_mlp(optimizer, foreach=True, fused=False)
        self.assertEqual(torch_cuda.fallback_counts(), {})

    def test_mlp_adam_and_adamw_fused(self) -> None:
        for optimizer in ("adam", "adamw"):
            with self.subTest(optimizer=optimizer):
                self.check_mlp(optimizer, foreach=False, fused=True)
        self.assertEqual(torch_cuda.fallback_counts(), {})

    def test_mlp_adam_for_loop(self) -> None:
        self.check_mlp("adam", foreach=False, fused=False)
        self.assertEqual(torch_cuda.fallback_counts(), {})

    def test_gpt_step_with_autocast_and_grad_scaler(self) -> None:
        cpu = models.gpt_step("cpu")
        cuda = models.gpt_step("cuda")
        # bf16 autocast: CPU and CUDA autocast cast different op lists to bf16.
        torch.testing.assert_close(cuda, cpu, rtol=1e-3, atol=1e-3)
        self.assertEqual(torch_cuda.fallback_counts(), {})

    def test_gpt_top_k_generation(self) -> None:
        self.assertEqual(models.gpt_generate("cuda"), models.gpt_generate("cpu"))
        self.assertEqual(torch_cuda.fallback_counts(), {})

    def test_cnn_channels_last_step(self) -> None:
        cpu = models.resnet_step("cpu")
        # cuDNN rounds float convolutions' inputs to TF32 by default, as on an Ampere GPU;
        # without it the step matches the CPU's to float's precision.
        allow_tf32 = torch.backends.cudnn.allow_tf32
        torch.backends.cudnn.allow_tf32 = False
        try:
            cuda = models.resnet_step("cuda")
        finally:
            torch.backends.cudnn.allow_tf32 = allow_tf32
        torch.testing.assert_close(cuda, cpu, rtol=1e-5, atol=1e-6)
        self.assertEqual(torch_cuda.fallback_counts(), {})

if __name__ == "__main__":
    unittest.main()
