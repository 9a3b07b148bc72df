"""Sparse tensors on the backend's device, as stock CUDA torch has them: COO made on the
device or moved there, its indices and values on the device, to_dense, and the sparse
operators (coalesce, add, mul, sum, mm, the gradients of sparse.mm and of a sparse
embedding, SparseAdam) agreeing with the CPU; the compressed layouts (CSR, CSC, BSR, BSC)
made, moved, converted and multiplied. The basics are native (torch_core's
sparse_registration.h); the rest runs on the CPU through the sparse key's fallback, which
must choose the CPU's sparse kernels."""

import unittest

import torch
from backend import DEVICE, main, mod

INDICES = torch.tensor([[0, 1, 1, 0], [2, 0, 2, 2]])
VALUES = torch.tensor([3.0, 4.0, 5.0, 1.0])
SIZE = (2, 3)


def on_cpu() -> torch.Tensor:
    return torch.sparse_coo_tensor(INDICES, VALUES, SIZE)


def fell_back(name: str) -> int:
    return sum(n for op, n in mod.fallback_counts().items() if op.split(".")[0] == name)


class Sparse(unittest.TestCase):
    def setUp(self) -> None:
        mod.set_fallback_policy("allow")
        mod.reset_fallback_counts()

    def assert_same(self, actual: torch.Tensor, expected: torch.Tensor) -> None:
        self.assertEqual(actual.device.type, DEVICE)
        self.assertEqual(actual.layout, expected.layout)
        if actual.is_sparse:
            actual, expected = actual.to_dense(), expected.to_dense()
        torch.testing.assert_close(actual.cpu(), expected)

    def test_made_and_moved_natively(self) -> None:
        made = torch.sparse_coo_tensor(INDICES, VALUES, SIZE, device=DEVICE)
        moved = on_cpu().to(DEVICE)
        for s in (made, moved):
            self.assertTrue(s.is_sparse)
            self.assertEqual((s.sparse_dim(), s.dense_dim(), s._nnz()), (2, 0, 4))
            self.assertEqual(s._indices().device.type, DEVICE)
            self.assertEqual(s._values().device.type, DEVICE)
            self.assertFalse(s.is_coalesced())
            self.assert_same(s, on_cpu())
            torch.testing.assert_close(s.cpu().to_dense(), on_cpu().to_dense())
        self.assert_same(torch.eye(3, device=DEVICE).to_sparse(), torch.eye(3).to_sparse())
        self.assert_same(moved.clone().zero_(), on_cpu().zero_())
        for name in ("aten::_to_dense", "aten::_indices", "aten::_values", "aten::clone",
                     "aten::_sparse_coo_tensor_with_dims_and_tensors"):
            self.assertEqual(fell_back(name), 0, name)

    def test_operators_agree_with_the_cpu(self) -> None:
        s, dense = on_cpu(), torch.randn(3, 2)
        cases = {
            "coalesce": lambda t, d: t.coalesce(),
            "add": lambda t, d: t + t,
            "mul": lambda t, d: t * 2.5,
            "sum": lambda t, d: torch.sparse.sum(t),
            "mm": lambda t, d: torch.sparse.mm(t, d),
            "t": lambda t, d: t.t().coalesce(),
            "add_": lambda t, d: t.clone().add_(t),
        }
        for name, fn in cases.items():
            with self.subTest(op=name):
                self.assert_same(fn(s.to(DEVICE), dense.to(DEVICE)), fn(s, dense))
        coalesced = s.to(DEVICE).coalesce()
        self.assertTrue(coalesced.is_coalesced())
        self.assertEqual(coalesced._nnz(), 3)
        self.assertGreater(fell_back("aten::_coalesce"), 0)  # on the CPU's sparse kernel

    def test_gradients_and_sparse_optimizer(self) -> None:
        weight = torch.randn(3, 2)
        grads = []
        for device in ("cpu", DEVICE):
            w = weight.to(device).detach().requires_grad_()
            torch.sparse.mm(on_cpu().to(device), w).sum().backward()
            grads.append(w.grad.cpu())
        torch.testing.assert_close(grads[1], grads[0])

        tables = []
        for device in ("cpu", DEVICE):
            torch.manual_seed(0)
            embedding = torch.nn.Embedding(5, 3, sparse=True).to(device)
            optimizer = torch.optim.SparseAdam(embedding.parameters(), lr=0.1)
            embedding(torch.tensor([0, 2, 2], device=device)).sum().backward()
            self.assertTrue(embedding.weight.grad.is_sparse)
            optimizer.step()
            tables.append(embedding.weight.detach().cpu())
        torch.testing.assert_close(tables[1], tables[0])

    def test_compressed_layouts(self) -> None:
        dense = torch.tensor([[0.0, 2.0, 0.0, 1.0], [3.0, 0.0, 4.0, 0.0]])
        conversions = {
            "csr": lambda t: t.to_sparse_csr(),
            "csc": lambda t: t.to_sparse_csc(),
            "bsr": lambda t: t.to_sparse_bsr((1, 2)),
            "bsc": lambda t: t.to_sparse_bsc((2, 1)),
        }
        for name, convert in conversions.items():
            with self.subTest(layout=name):
                expected = convert(dense)
                for actual in (expected.to(DEVICE), convert(dense.to(DEVICE))):
                    self.assert_same(actual, expected)
                    self.assertEqual(actual.values().device.type, DEVICE)
                    self.assert_same(actual.to_sparse(), expected.to_sparse())
        csr = torch.sparse_csr_tensor(torch.tensor([0, 2, 4]), torch.tensor([1, 3, 0, 2]),
                                      torch.tensor([2.0, 1.0, 3.0, 4.0]), (2, 4), device=DEVICE)
        self.assertEqual(csr.crow_indices().device.type, DEVICE)
        self.assert_same(csr, dense.to_sparse_csr())
        other = torch.randn(4, 3)
        self.assert_same(csr @ other.to(DEVICE), dense @ other)
        self.assert_same(csr.clone().zero_(), dense.to_sparse_csr().zero_())
        for name in ("aten::_to_dense", "aten::values", "aten::crow_indices", "aten::clone"):
            self.assertEqual(fell_back(name), 0, name)

    def test_reducing_sparse_mm_and_its_gradient(self) -> None:
        # amax/amin keep the winners' indices for the backward only for inputs that require
        # grad; the device's host copies must say so (the backward crashed before).
        torch.manual_seed(0)
        dense = torch.randn(5, 4) * (torch.rand(5, 4) > 0.4)
        other = torch.randn(4, 3)
        for reduce in ("sum", "mean", "amax", "amin"):
            with self.subTest(reduce=reduce):
                grads = []
                for device in ("cpu", DEVICE):
                    a = dense.to_sparse_csr().to(device).requires_grad_()
                    b = other.to(device).detach().requires_grad_()
                    out = torch.sparse.mm(a, b, reduce)
                    out.sum().backward()
                    grads.append((out.detach().cpu(), a.grad.cpu().to_dense(), b.grad.cpu()))
                torch.testing.assert_close(grads[1], grads[0])


if __name__ == "__main__":
    main()
