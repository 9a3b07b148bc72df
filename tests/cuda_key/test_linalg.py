"""torch.linalg on the CUDA key: stock's structured operators over the solver stubs, each
a cuSOLVER plan (potrf, getrf, getrs, geqrf, orgqr/ungqr, syevd/heevd, gesvdj/gesvd/
gesvda) or cuBLAS's trsm, agreeing with the CPU.

On the simulated variant the plans run on the host through the pinned torch's LAPACK
kernels, reading and writing each matrix through the plan's leading dimension and
offsets, so a wrong layout fails here. Everything runs with TORCH_CUDA_FALLBACK=error: no
operator reaches the CPU. The real executor is tested without torch in
tests/gpu:cusolver_test."""

from __future__ import annotations

import threading
import unittest
import warnings
from collections.abc import Callable

import torch
from library_calls import RECORDED, LibraryCalls

import torch_cuda

ALL = (torch.float32, torch.float64, torch.complex64, torch.complex128)


def close(test: unittest.TestCase, actual: torch.Tensor, expected: torch.Tensor, what: str) -> None:
    tolerance = (
        {"rtol": 1e-4, "atol": 1e-4} if expected.dtype in (torch.float32, torch.complex64) else {}
    )
    test.assertEqual(actual.device.type, "cuda", what)
    torch.testing.assert_close(actual.cpu(), expected, msg=lambda m: f"{what}: {m}", **tolerance)


def positive_definite(*shape: int, dtype: torch.dtype) -> torch.Tensor:
    a = torch.randn(*shape, dtype=dtype)
    return a @ a.mH + shape[-1] * torch.eye(shape[-1], dtype=dtype)


class LinalgTestCase(unittest.TestCase):
    def setUp(self) -> None:
        torch.manual_seed(0)
        torch_cuda.set_fallback_policy("error")

    def tearDown(self) -> None:
        torch_cuda.set_fallback_policy("allow")

    def agree(self, fn: Callable[..., object], *inputs: torch.Tensor, what: str) -> None:
        """fn on the device agrees with fn on the CPU, output by output."""
        expected = fn(*inputs)
        actual = fn(*(x.cuda() for x in inputs))
        if isinstance(expected, torch.Tensor):
            expected, actual = (expected,), (actual,)
        for i, (a, e) in enumerate(zip(actual, expected, strict=False)):
            close(self, a, e, f"{what} output {i}")


class FactorisationsAgreeWithTheCpu(LinalgTestCase):
    def test_cholesky_both_triangles_and_batches(self) -> None:
        for dtype in ALL:
            a = positive_definite(2, 3, 5, 5, dtype=dtype)
            for upper in (False, True):
                self.agree(
                    lambda x, u=upper: torch.linalg.cholesky(x, upper=u),
                    a,
                    what=f"cholesky {dtype} {upper}",
                )
            self.agree(torch.cholesky, a[0, 0], what=f"torch.cholesky {dtype}")

    def test_lu_factor_solve_inv_det(self) -> None:
        for dtype in ALL:
            a = torch.randn(3, 5, 5, dtype=dtype)
            b = torch.randn(2, 3, 5, 4, dtype=dtype)  # a factorisation broadcast over b's batch
            self.agree(torch.linalg.lu_factor, a, what=f"lu_factor {dtype}")
            lu, pivots = torch.linalg.lu_factor(a)
            for adjoint in (False, True):
                for left in (False, True):
                    rhs = b if left else b.mT
                    self.agree(
                        lambda x, p, r, ad=adjoint, le=left: torch.linalg.lu_solve(
                            x, p, r, left=le, adjoint=ad
                        ),
                        lu,
                        pivots,
                        rhs,
                        what=f"lu_solve {dtype} adjoint={adjoint} left={left}",
                    )
            self.agree(torch.linalg.solve, a, b[0], what=f"solve {dtype}")
            self.agree(torch.linalg.inv, a, what=f"inv {dtype}")
            self.agree(torch.linalg.det, a, what=f"det {dtype}")
            self.agree(torch.linalg.slogdet, a, what=f"slogdet {dtype}")

    def test_lu_without_pivoting_is_the_cuda_keys(self) -> None:
        # The CPU has no LU without pivoting; stock's CUDA fills the pivots with 1..k.
        a = torch.randn(4, 4, dtype=torch.float64) + 4 * torch.eye(4, dtype=torch.float64)
        lu, pivots = torch.linalg.lu_factor(a.cuda(), pivot=False)
        torch.testing.assert_close(pivots.cpu(), torch.arange(1, 5, dtype=torch.int32))
        lower = lu.cpu().tril(-1) + torch.eye(4, dtype=torch.float64)
        torch.testing.assert_close(lower @ lu.cpu().triu(), a)
        with self.assertRaisesRegex(
            RuntimeError, "LU without pivoting is not implemented on the CPU"
        ):
            torch.linalg.lu_factor(a, pivot=False)

    def test_qr_in_every_mode_and_shape(self) -> None:
        for dtype in ALL:
            for shape in ((6, 4), (4, 6), (5, 5)):
                a = torch.randn(2, *shape, dtype=dtype)
                for mode in ("reduced", "complete", "r"):
                    self.agree(
                        lambda x, md=mode: torch.linalg.qr(x, mode=md),
                        a,
                        what=f"qr {dtype} {shape} {mode}",
                    )
            self.agree(torch.geqrf, a, what=f"geqrf {dtype}")
            self.agree(
                lambda x: torch.linalg.householder_product(*torch.geqrf(x)),
                a,
                what=f"householder {dtype}",
            )

    def test_eigh_values_and_vectors(self) -> None:
        for dtype in ALL:
            a = positive_definite(3, 6, 6, dtype=dtype)
            for uplo in ("L", "U"):
                self.agree(
                    lambda x, u=uplo: torch.linalg.eigvalsh(x, UPLO=u),
                    a,
                    what=f"eigvalsh {dtype} {uplo}",
                )
                values, vectors = torch.linalg.eigh(a.cuda(), UPLO=uplo)
                values, vectors = values.cpu(), vectors.cpu()
                # Eigenvectors are unique up to a phase: check A V = V diag(w).
                close(
                    self,
                    (a @ vectors).cuda(),
                    vectors * values.unsqueeze(-2).to(dtype),
                    f"eigh {dtype} {uplo}",
                )

    def test_svd_with_each_driver(self) -> None:
        for dtype in ALL:
            for shape in ((6, 4), (4, 6), (5, 5), (4, 1), (1, 3)):
                a = torch.randn(2, *shape, dtype=dtype)
                k = min(shape)
                self.agree(torch.linalg.svdvals, a, what=f"svdvals {dtype} {shape}")
                for driver in (None, "gesvd", "gesvdj", "gesvda"):
                    for full in (False, True):
                        u, s, vh = (
                            t.cpu()
                            for t in torch.linalg.svd(a.cuda(), full_matrices=full, driver=driver)
                        )
                        what = f"svd {dtype} {shape} {driver} full_matrices={full}"
                        self.assertEqual(u.shape[-1], shape[0] if full else k, what)
                        rebuilt = u[..., :k] @ torch.diag_embed(s).to(dtype) @ vh[..., :k, :]
                        close(self, rebuilt.cuda(), a, what)
                        close(self, s.cuda(), torch.linalg.svdvals(a), what)
                        if full and driver != "gesvda":  # gesvda computes k columns only
                            eye = torch.eye(shape[0], dtype=dtype).expand_as(u)
                            close(self, (u.mH @ u).cuda(), eye, f"{what}: U unitary")

    def test_cholesky_solve_and_inverse(self) -> None:
        for dtype in ALL:
            factor = torch.linalg.cholesky(positive_definite(3, 4, 4, dtype=dtype))
            b = torch.randn(3, 4, 2, dtype=dtype)
            for upper, f in ((False, factor), (True, factor.mH)):
                for which, fac in (("batched", f), ("broadcast", f[0])):
                    self.agree(
                        lambda y, x, u=upper: torch.cholesky_solve(y, x, upper=u),
                        b,
                        fac,
                        what=f"cholesky_solve {dtype} upper={upper} {which}",
                    )
                self.agree(
                    lambda x, u=upper: torch.cholesky_inverse(x, upper=u),
                    f,
                    what=f"cholesky_inverse {dtype} upper={upper}",
                )

    def test_ormqr_and_lstsq(self) -> None:
        for dtype in ALL:
            reflectors, tau = torch.geqrf(torch.randn(2, 5, 3, dtype=dtype))
            for left, other in (
                (True, torch.randn(2, 5, 4, dtype=dtype)),
                (False, torch.randn(2, 4, 5, dtype=dtype)),
            ):
                for transpose in (False, True):
                    self.agree(
                        lambda r, t, o, le=left, tr=transpose: torch.ormqr(r, t, o, le, tr),
                        reflectors,
                        tau,
                        other,
                        what=f"ormqr {dtype} left={left} transpose={transpose}",
                    )
            # CUDA's driver is gels (QR): over- and underdetermined, A broadcast over B.
            for m, n in ((6, 4), (4, 6), (5, 5)):
                for batch in ((3, 2), (1, 2)):
                    a, b = (
                        torch.randn(*batch, m, n, dtype=dtype),
                        torch.randn(3, 2, m, 2, dtype=dtype),
                    )
                    expected = torch.linalg.lstsq(a, b, driver="gels").solution
                    actual = torch.linalg.lstsq(a.cuda(), b.cuda()).solution
                    close(self, actual, expected, f"lstsq {dtype} {batch} {m}x{n}")
        with self.assertRaisesRegex(RuntimeError, "other than `gels` is not supported on CUDA"):
            torch.linalg.lstsq(torch.randn(3, 3).cuda(), torch.randn(3, 1).cuda(), driver="gelsd")

    def test_triangular_solves(self) -> None:
        for dtype in ALL:
            a = torch.randn(2, 4, 4, dtype=dtype).triu() + 4 * torch.eye(4, dtype=dtype)
            b = torch.randn(2, 4, 3, dtype=dtype)
            for upper, m in ((True, a), (False, a.mH)):
                for left, rhs in ((True, b), (False, b.mT)):
                    for unit in (False, True):
                        self.agree(
                            lambda x, y, u=upper, le=left, un=unit: torch.linalg.solve_triangular(
                                x, y, upper=u, left=le, unitriangular=un
                            ),
                            m,
                            rhs,
                            what=f"solve_triangular {dtype} upper={upper} left={left} unit={unit}",
                        )
                # A row-major A and a conjugated one: stock passes their memory with flags.
                self.agree(
                    lambda x, y, u=upper: torch.linalg.solve_triangular(
                        x.mT.contiguous().mT, y, upper=u
                    ),
                    m.mT.contiguous(),
                    b,
                    what=f"solve_triangular row-major {dtype}",
                )
                self.agree(
                    lambda x, y, u=upper: torch.linalg.solve_triangular(x.conj(), y, upper=u),
                    m,
                    b,
                    what=f"solve_triangular conj {dtype}",
                )
            self.agree(
                lambda x, y: torch.linalg.solve_triangular(x, y, upper=True),
                a[0],
                b,
                what=f"solve_triangular broadcast {dtype}",
            )


class LayoutsAndOutputs(LinalgTestCase):
    def test_strided_and_transposed_inputs(self) -> None:
        base = positive_definite(4, 10, 10, dtype=torch.float64)
        for view in (lambda t: t[::2, ::2, ::2], lambda t: t.mT, lambda t: t[1:, 2:7, 2:7]):
            x = view(base)
            self.agree(torch.linalg.cholesky, x, what="cholesky of a view")
            self.agree(torch.linalg.inv, x, what="inv of a view")
            self.agree(torch.linalg.svdvals, x, what="svdvals of a view")
            self.agree(torch.linalg.eigvalsh, x, what="eigvalsh of a view")

    def test_out_variants(self) -> None:
        a = positive_definite(2, 4, 4, dtype=torch.float64)
        out = torch.empty(0, dtype=torch.float64, device="cuda")
        torch.linalg.cholesky(a.cuda(), out=out)
        close(self, out, torch.linalg.cholesky(a), "cholesky out=")
        q, r = (
            torch.empty(0, device="cuda", dtype=torch.float64),
            torch.empty(0, device="cuda", dtype=torch.float64),
        )
        torch.linalg.qr(a.cuda(), out=(q, r))
        close(self, r, torch.linalg.qr(a).R, "qr out=")

    @unittest.skipUnless(torch.cuda.device_count() >= 2, "needs two devices")
    def test_second_device_while_the_first_is_current(self) -> None:
        # Each call runs on its tensors' device (their stream and handle), not the current.
        a = positive_definite(2, 4, 4, dtype=torch.float64)
        b = torch.randn(2, 4, 3, dtype=torch.float64)
        factor = torch.linalg.cholesky(a)
        with torch.cuda.device(0):
            on_second = {
                "cholesky_solve": torch.cholesky_solve(b.to("cuda:1"), factor.to("cuda:1")),
                "solve": torch.linalg.solve(a.to("cuda:1"), b.to("cuda:1")),
                "svdvals": torch.linalg.svdvals(a.to("cuda:1")),
            }
        expected = {
            "cholesky_solve": torch.cholesky_solve(b, factor),
            "solve": torch.linalg.solve(a, b),
            "svdvals": torch.linalg.svdvals(a),
        }
        for name, actual in on_second.items():
            self.assertEqual(actual.device, torch.device("cuda:1"), name)
            close(self, actual, expected[name], f"{name} on cuda:1")

    def test_empty_and_one_by_one(self) -> None:
        for shape in ((0, 0), (3, 0, 0), (1, 1), (2, 1, 1)):
            a = torch.ones(*shape, dtype=torch.float64) * 4
            for fn in (
                torch.linalg.cholesky,
                torch.linalg.inv,
                torch.linalg.det,
                torch.linalg.eigvalsh,
                torch.linalg.svdvals,
            ):
                self.agree(fn, a, what=f"{fn.__name__} of {shape}")


class ErrorsAreStocks(LinalgTestCase):
    def test_not_positive_definite(self) -> None:
        a = torch.eye(3, dtype=torch.float64)
        a[1, 1] = -1
        with self.assertRaisesRegex(
            torch.linalg.LinAlgError, "leading minor of order 2 is not positive-definite"
        ):
            torch.linalg.cholesky(a.cuda())
        _, info = torch.linalg.cholesky_ex(
            torch.stack([torch.eye(3, dtype=torch.float64), a]).cuda()
        )
        torch.testing.assert_close(info.cpu(), torch.tensor([0, 2], dtype=torch.int32))

    def test_singular(self) -> None:
        singular = torch.zeros(2, 3, 3)
        with self.assertRaisesRegex(
            torch.linalg.LinAlgError, r"\(Batch element 0\): The diagonal element 1 is zero"
        ):
            torch.linalg.inv(singular.cuda())
        with self.assertRaisesRegex(torch.linalg.LinAlgError, "singular"):
            torch.linalg.solve(singular.cuda(), torch.ones(2, 3).cuda())

    def test_unsupported_dtype_and_driver(self) -> None:
        with self.assertRaisesRegex(RuntimeError, "not implemented for 'Half'|Half"):
            torch.linalg.cholesky(torch.eye(3, dtype=torch.half).cuda())
        with self.assertRaisesRegex(RuntimeError, "unknown svd driver foo"):
            torch.linalg.svd(torch.randn(3, 3).cuda(), driver="foo")

    def test_svd_that_does_not_converge(self) -> None:
        # gesvdj reports a matrix with NaN as not converged: stock's warning, then gesvd,
        # which does not converge either: the LinAlgError stock's CUDA raises.
        nan = torch.full((3, 3), float("nan"))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with self.assertRaisesRegex(torch.linalg.LinAlgError, "failed to converge"):
                torch.linalg.svd(nan.cuda())
        self.assertTrue(
            any("batches 0 failed to converge" in str(w.message) for w in caught), caught
        )


class Gradients(LinalgTestCase):
    def test_backward_matches_the_cpu(self) -> None:
        # Complex gradients go through complex products (complex gemm plans) too.
        for dtype in (torch.float64, torch.complex128):
            b = torch.randn(2, 4, 3, dtype=dtype)
            functions: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
                "cholesky": torch.linalg.cholesky,
                "qr": lambda x: torch.linalg.qr(x).R,
                "inv": torch.linalg.inv,
                "det": torch.linalg.det,
                "slogdet": lambda x: torch.linalg.slogdet(x).logabsdet,
                "eigh": lambda x: torch.linalg.eigh(x).eigenvalues,
                "svdvals": torch.linalg.svdvals,
                "solve": lambda x, rhs=b: torch.linalg.solve(x, rhs.to(x.device)),
                "pinv": torch.linalg.pinv,
                "lstsq": lambda x, rhs=b: torch.linalg.lstsq(x, rhs.to(x.device)).solution,
            }
            a = positive_definite(2, 4, 4, dtype=dtype)
            for name, fn in functions.items():
                x, xc = a.clone().requires_grad_(), a.cuda().requires_grad_()
                y, yc = fn(x), fn(xc)
                g = torch.randn_like(y)
                (expected,) = torch.autograd.grad(y, x, g)
                (actual,) = torch.autograd.grad(yc, xc, g.cuda())
                close(self, actual, expected, f"{name} backward {dtype}")


class SolverHandle(LinalgTestCase):
    @unittest.skipUnless(RECORDED, "the real variant has a cuSOLVER handle (next test)")
    def test_simulated_variant_has_no_solver_handle(self) -> None:
        with self.assertRaisesRegex(
            RuntimeError, "simulated variant of torch_cuda has no cuSOLVER"
        ):
            torch.cuda.current_solver_handle()

    @unittest.skipIf(RECORDED, "the simulated variant has no cuSOLVER: its solvers run on the host")
    def test_current_solver_handle_is_the_threads(self) -> None:
        handle = torch.cuda.current_solver_handle()
        self.assertNotEqual(handle, 0)
        self.assertEqual(torch.cuda.current_solver_handle(), handle)
        other: list[int] = []
        thread = threading.Thread(target=lambda: other.append(torch.cuda.current_solver_handle()))
        thread.start()
        thread.join()
        self.assertNotEqual(other, [handle])  # a thread leases its own


@unittest.skipUnless(
    RECORDED,
    "the real variant records no library calls; tests/gpu:cusolver_test tests its executor",
)
class LibraryCallsOfEachOperator(LinalgTestCase):
    def calls(self, fn: Callable[[], object]) -> dict[str, int]:
        with LibraryCalls() as recorded:
            fn()
        return recorded.made

    def test_one_call_per_matrix_named_by_type(self) -> None:
        spd = positive_definite(3, 4, 4, dtype=torch.float64).cuda()
        self.assertEqual(self.calls(lambda: torch.linalg.cholesky(spd)), {"cusolverDnDpotrf": 3})
        complex_spd = positive_definite(2, 4, 4, dtype=torch.complex64).cuda()
        self.assertEqual(
            self.calls(lambda: torch.linalg.eigvalsh(complex_spd)), {"cusolverDnCheevd": 2}
        )
        a = torch.randn(2, 4, 4).cuda()
        self.assertEqual(
            self.calls(lambda: torch.linalg.solve(a, a)),
            {"cusolverDnSgetrf": 2, "cusolverDnSgetrs": 2},
        )
        self.assertEqual(
            self.calls(lambda: torch.linalg.qr(a)), {"cusolverDnSgeqrf": 2, "cusolverDnSorgqr": 2}
        )
        self.assertEqual(
            self.calls(lambda: torch.linalg.solve_triangular(a, a, upper=True)), {"cublasStrsm": 2}
        )
        factor = torch.linalg.cholesky(spd)
        self.assertEqual(
            self.calls(lambda: torch.cholesky_solve(spd, factor)), {"cusolverDnDpotrs": 3}
        )
        self.assertEqual(
            self.calls(lambda: torch.linalg.lstsq(a, a)),
            {"cusolverDnSgeqrf": 2, "cusolverDnSormqr": 2, "cublasStrsm": 2},
        )

    def test_svd_drivers(self) -> None:
        a = torch.randn(4, 6, dtype=torch.float64).cuda()
        self.assertEqual(self.calls(lambda: torch.linalg.svd(a)), {"cusolverDnDgesvdj": 1})
        self.assertEqual(
            self.calls(lambda: torch.linalg.svd(a, driver="gesvd")), {"cusolverDnDgesvd": 1}
        )
        self.assertEqual(
            self.calls(lambda: torch.linalg.svd(a, driver="gesvda")),
            {"cusolverDnDgesvdaStridedBatched": 1},
        )


if __name__ == "__main__":
    unittest.main()
