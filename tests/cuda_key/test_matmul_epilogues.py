"""addmm with a bias and _addmm_activation on the CUDA key go to cuBLASLt with the bias (and
ReLU or GELU) as the gemm's epilogue, under stock's conditions, and agree with the CPU.

The simulated variant runs the cuBLASLt plan on the host with the library's semantics and
records each library call it stands in for (_CUDAC._simulated_library_calls), so these
tests see which call an operator made, as a profiler shows the kernels on a GPU. The real
executor is tested without torch in tests/gpu/cublas_test."""

from __future__ import annotations

import copy
import unittest

import torch
import torch.nn.functional as F
from child_python import run_python
from library_calls import RECORDED, LibraryCalls

import torch_cuda

LT = "cublasLtMatmul"
GEMM = "cublasGemmEx"
FLOAT_DTYPES = (torch.float32, torch.float64, torch.float16, torch.bfloat16)


def tolerance(dtype: torch.dtype) -> dict[str, float]:
    if dtype in (torch.float16, torch.bfloat16):
        return {"atol": 2e-2, "rtol": 2e-2}
    return {}


@unittest.skipUnless(
    RECORDED,
    "the real variant records no library calls; tests/gpu:cublas_test tests its cuBLASLt executor",
)
class MatmulEpilogues(unittest.TestCase):
    def setUp(self) -> None:
        torch.manual_seed(0)
        torch_cuda.set_fallback_policy("error")

    def tearDown(self) -> None:
        torch_cuda.set_fallback_policy("allow")

    def test_linear_forward_is_one_cublaslt_call_with_the_bias(self) -> None:
        for dtype in FLOAT_DTYPES:
            for shape in ((6, 5), (2, 3, 5)):  # 3-d input: at::linear flattens it for addmm
                with self.subTest(dtype=dtype, shape=shape):
                    linear = torch.nn.Linear(5, 7, dtype=dtype)
                    x = torch.randn(shape, dtype=dtype)
                    want = linear(x)
                    linear_cuda = linear.cuda()
                    with LibraryCalls() as calls:
                        got = linear_cuda(x.cuda())
                    self.assertEqual(calls.made, {LT: 1})
                    torch.testing.assert_close(got.cpu(), want, **tolerance(dtype))

    def test_linear_gelu_stack_trains_through_the_epilogue_plan(self) -> None:
        torch.manual_seed(1)
        model = torch.nn.Sequential(
            torch.nn.Linear(8, 16), torch.nn.GELU(), torch.nn.Linear(16, 4)
        ).double()
        x, target = torch.randn(10, 8, dtype=torch.float64), torch.randn(10, 4, dtype=torch.float64)
        model_cuda = copy.deepcopy(model).cuda()
        F.mse_loss(model(x), target).backward()
        with LibraryCalls() as calls:
            F.mse_loss(model_cuda(x.cuda()), target.cuda()).backward()
        # Forward: one cuBLASLt call per Linear; backward: the gradients' mm (cuBLAS).
        self.assertEqual(calls.made.get(LT), 2)
        self.assertGreaterEqual(calls.made.get(GEMM, 0), 3)
        for p, p_cuda in zip(model.parameters(), model_cuda.parameters(), strict=True):
            torch.testing.assert_close(p_cuda.grad.cpu(), p.grad)

    def test_addmm_activation_is_the_relu_or_tanh_gelu_epilogue(self) -> None:
        # Stock's CUDA kernel applies GELU's tanh approximation (cuBLASLt's epilogue, and
        # its own fallback); stock's CPU kernel the exact GELU.
        for dtype in FLOAT_DTYPES:
            bias = torch.randn(6, dtype=dtype)
            a, b = torch.randn(4, 9, dtype=dtype), torch.randn(9, 6, dtype=dtype)
            product = torch.addmm(bias.double(), a.double(), b.double(), alpha=0.5)
            for use_gelu in (False, True):
                with self.subTest(dtype=dtype, use_gelu=use_gelu):
                    want = F.gelu(product, approximate="tanh") if use_gelu else product.relu()
                    with LibraryCalls() as calls:
                        got = torch._addmm_activation(
                            bias.cuda(), a.cuda(), b.cuda(), alpha=0.5, use_gelu=use_gelu
                        )
                    self.assertEqual(calls.made, {LT: 1})
                    torch.testing.assert_close(got.cpu(), want.to(dtype), **tolerance(dtype))

    def test_outside_stocks_conditions_the_gemm_then_the_activation(self) -> None:
        a, b = torch.randn(4, 9, dtype=torch.float64), torch.randn(9, 6, dtype=torch.float64)
        wide = torch.randn(12, dtype=torch.float64).cuda()
        cases = {  # self on the device, mat2, beta
            "2-d self": (torch.randn(4, 6, dtype=torch.float64).cuda(), b, 1.0),
            "beta 0.5": (torch.randn(6, dtype=torch.float64).cuda(), b, 0.5),
            "strided bias": (wide[::2], b, 1.0),
            "one column": (torch.randn(1, dtype=torch.float64).cuda(), b[:, :1], 1.0),
        }
        for name, (bias, mat2, beta) in cases.items():
            with self.subTest(name):
                want = F.gelu(torch.addmm(bias.cpu(), a, mat2, beta=beta), approximate="tanh")
                with LibraryCalls() as calls:
                    got = torch._addmm_activation(
                        bias, a.cuda(), mat2.cuda(), beta=beta, use_gelu=True
                    )
                self.assertNotIn(LT, calls.made)
                self.assertEqual(calls.made.get(GEMM), 1)
                torch.testing.assert_close(got.cpu(), want)

    def test_out(self) -> None:
        bias = torch.randn(5, dtype=torch.float64)
        a, b = torch.randn(3, 4, dtype=torch.float64), torch.randn(4, 5, dtype=torch.float64)
        out = torch.empty(0, dtype=torch.float64, device="cuda")
        torch._addmm_activation(bias.cuda(), a.cuda(), b.cuda(), out=out)
        torch.testing.assert_close(out.cpu(), torch.addmm(bias, a, b).relu())
        wrong = torch.empty(0, dtype=torch.float32, device="cuda")
        with self.assertRaisesRegex(RuntimeError, "Expected out tensor to have dtype"):
            torch._addmm_activation(bias.cuda(), a.cuda(), b.cuda(), out=wrong)

    def test_an_empty_product_is_the_bias_without_the_activation(self) -> None:
        # As stock's CUDA kernel: with k == 0 it returns beta * self before the activation.
        bias = torch.tensor([-1.0, 2.0, -3.0])
        a, b = torch.empty(2, 0), torch.empty(0, 3)
        got = torch._addmm_activation(bias.cuda(), a.cuda(), b.cuda())
        torch.testing.assert_close(got.cpu(), bias.expand(2, 3))

    def test_disable_addmm_cuda_lt_keeps_cublas(self) -> None:
        code = (
            "import torch, torch_cuda, _CUDAC\n"
            "bias, a, b = (torch.randn(*s).cuda() for s in ((6,), (4, 9), (9, 6)))\n"
            "torch.addmm(bias, a, b); torch.cuda.synchronize()\n"
            "calls = _CUDAC._simulated_library_calls()\n"
            "print(calls.get('cublasLtMatmul', 0), calls.get('cublasGemmEx', 0))\n"
        )
        for value, want in (("1", "0 1"), ("0", "1 0")):
            with self.subTest(DISABLE_ADDMM_CUDA_LT=value):
                child = run_python(code, DISABLE_ADDMM_CUDA_LT=value)
                self.assertEqual(child.returncode, 0, child.stderr)
                self.assertEqual(child.stdout.split(), want.split())


if __name__ == "__main__":
    unittest.main()
