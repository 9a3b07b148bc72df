"""Autograd: small models' forward, backward and optimizer step match the CPU."""

import copy
import unittest
from collections.abc import Callable

import torch
from backend import DEVICE, device, main, requires_devices


def train_step(
    model: torch.nn.Module,
    x: torch.Tensor,
    target: torch.Tensor,
    optimizer_cls: type[torch.optim.Optimizer],
) -> torch.Tensor:
    optimizer = optimizer_cls(model.parameters(), lr=0.1)
    optimizer.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x), target)
    loss.backward()
    optimizer.step()
    return loss.detach()


def linear_model() -> tuple[torch.nn.Module, torch.Tensor, torch.Tensor]:
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))
    return model, torch.randn(16, 4), torch.randn(16, 2)


def conv_model() -> tuple[torch.nn.Module, torch.Tensor, torch.Tensor]:
    # A convolution and a strided transposed one with groups: stock's kernels end in
    # convolution_overrideable (PrivateUse1, torch_core's convolution lowering) and, on the
    # CUDA key, in cuDNN's operators and backward stubs.
    model = torch.nn.Sequential(
        torch.nn.Conv2d(2, 4, 3, padding=1),
        torch.nn.ReLU(),
        torch.nn.ConvTranspose2d(4, 2, 3, stride=2, groups=2),
    )
    return model, torch.randn(3, 2, 6, 6), torch.randn(3, 2, 13, 13)


class Autograd(unittest.TestCase):
    def check(
        self,
        where: torch.device,
        optimizer_cls: type[torch.optim.Optimizer],
        make_model: Callable[[], tuple[torch.nn.Module, torch.Tensor, torch.Tensor]] = linear_model,
    ) -> None:
        torch.manual_seed(0)
        model, x, target = make_model()
        on_device = copy.deepcopy(model).to(where)
        cpu_loss = train_step(model, x, target, optimizer_cls)
        dev_loss = train_step(on_device, x.to(where), target.to(where), optimizer_cls)
        torch.testing.assert_close(dev_loss.cpu(), cpu_loss, rtol=1e-5, atol=1e-6)
        for (name, p_cpu), p_dev in zip(
            model.named_parameters(), on_device.parameters(), strict=False
        ):
            self.assertEqual(p_dev.device, where, name)
            self.assertEqual(p_dev.grad.device, where, name)
            torch.testing.assert_close(p_dev.grad.cpu(), p_cpu.grad, rtol=1e-5, atol=1e-6, msg=name)
            torch.testing.assert_close(
                p_dev.detach().cpu(), p_cpu.detach(), rtol=1e-5, atol=1e-6, msg=name
            )

    def test_linear_sgd_matches_cpu(self) -> None:
        self.check(device(0), torch.optim.SGD)

    def test_adam_matches_cpu(self) -> None:
        self.check(device(0), torch.optim.Adam)

    def test_conv_sgd_matches_cpu(self) -> None:
        # cuDNN's TF32 (on by default, as on an Ampere GPU) off: float32's precision.
        with torch.backends.cudnn.flags(enabled=True, allow_tf32=False):
            self.check(device(0), torch.optim.SGD, conv_model)

    @requires_devices(2)
    def test_backward_on_second_device(self) -> None:
        self.check(device(1), torch.optim.SGD)

    def test_grad_of_native_ops(self) -> None:
        a = torch.randn(3, 3, device=DEVICE, requires_grad=True)
        b = torch.randn(3, 3, device=DEVICE, requires_grad=True)
        (a * b + a).sum().backward()
        torch.testing.assert_close(a.grad.cpu(), (b + 1).detach().cpu())
        torch.testing.assert_close(b.grad.cpu(), a.detach().cpu())


if __name__ == "__main__":
    main()
