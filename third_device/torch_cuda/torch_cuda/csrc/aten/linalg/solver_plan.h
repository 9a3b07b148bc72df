// The plans of torch_cuda's dense solvers (torch.linalg on cuSOLVER): everything decided
// before cuSOLVER is called, in plain host C++ (no CUDA header), so both variants run the
// same plan. The DispatchStubs of linalg/solver_stubs.cpp describe their tensors as
// batches of column-major matrices and vectors (stock's layouts: the structured kernels'
// meta functions make them batched column-major) and hand a plan to an executor:
//   real       linalg/cusolver_executor.cpp: cuSOLVER's dense API (cusolverDn<t>potrf,
//              potrs, getrf, getrs, geqrf, orgqr/ungqr, ormqr/unmqr, syevd/heevd, gesvd,
//              gesvdj, gesvdaStridedBatched) and cuBLAS's trsm, looping over the batch on
//              the current stream
//   simulated  simulated/csrc/host_solver.cpp: the same LAPACK routines on the host, with
//              cuSOLVER's documented semantics (what each reads and writes, 1-based
//              pivots, infos), so a wrong leading dimension or offset fails in CI.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "torch_core/csrc/runtime/device_runtime.h"

namespace torch_cuda::solver {

enum class ScalarType : std::int8_t { kFloat, kDouble, kComplexFloat, kComplexDouble };
enum class Triangle : std::int8_t { kLower, kUpper };  // cublasFillMode_t
enum class Operation : std::int8_t { kNone, kTranspose, kConjugateTranspose };  // cublasOperation_t
enum class SvdDriver : std::int8_t { kGesvd, kGesvdj, kGesvda };

bool is_complex(ScalarType type);

// A batch of column-major matrices in device memory: element (i, j) of matrix b lies
// offsets[b] + i + j * ld elements after data.
struct Matrices {
  void* data = nullptr;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t ld = 1;
  std::vector<std::int64_t> offsets;
};

// A batch of vectors (pivots, tau, eigen- and singular values, infos): vector b is
// `length` contiguous elements, offsets[b] elements after data.
struct Vectors {
  void* data = nullptr;
  std::int64_t length = 0;
  std::vector<std::int64_t> offsets;
};

// Cholesky (potrf): the `triangle` part of each n x n matrix of `a` becomes its factor;
// the other part is left as it was. info[b] (int32): 0, or the order of the leading minor
// that is not positive-definite.
struct CholeskyPlan {
  ScalarType type = ScalarType::kFloat;
  Triangle triangle = Triangle::kLower;
  Matrices a;
  Vectors info;
};

// Solves A X = B (potrs) with A = L L^H (or U^H U for the upper `triangle`) from
// CholeskyPlan's factor, for each matrix of `b` (n x nrhs, overwritten by X);
// factor.offsets has one entry per matrix of `b`.
struct CholeskySolvePlan {
  ScalarType type = ScalarType::kFloat;
  Triangle triangle = Triangle::kLower;
  Matrices factor;
  Matrices b;
};

// LU with partial pivoting (getrf) of each m x n matrix in place: L (unit diagonal) below,
// U on and above the diagonal; pivots (int32, 1-based, min(m, n) each) say which row
// row i was swapped with. Without `pivot`, no rows are swapped and pivots are not
// written. info[b]: 0, or i when U(i, i) (1-based) is exactly zero.
struct LuFactorPlan {
  ScalarType type = ScalarType::kFloat;
  bool pivot = true;
  Matrices a;
  Vectors pivots;
  Vectors info;
};

// Solves op(A) X = B (getrs) with A = P L U from LuFactorPlan, for each matrix of `b`
// (n x nrhs, overwritten by X). lu.offsets and pivots.offsets have one entry per matrix
// of `b`: a factorisation may serve several right-hand sides (broadcasting).
struct LuSolvePlan {
  ScalarType type = ScalarType::kFloat;
  Operation operation = Operation::kNone;
  Matrices lu;
  Vectors pivots;
  Matrices b;
};

// QR (geqrf) of each m x n matrix in place: R on and above the diagonal, the Householder
// vectors below it, their scalars in tau (min(m, n) each), as LAPACK.
struct QrPlan {
  ScalarType type = ScalarType::kFloat;
  Matrices a;
  Vectors tau;
};

// The m x n matrix Q with orthonormal columns (orgqr, ungqr for complex) from the first
// k = tau.length Householder vectors in the columns of each matrix of `a`, in place;
// m >= n >= k.
struct HouseholderProductPlan {
  ScalarType type = ScalarType::kFloat;
  Matrices a;
  Vectors tau;
};

// Multiplies each matrix of `c` (m x n, overwritten) by Q of QrPlan's Householder vectors
// (ormqr, unmqr for complex): op(Q) C when `left`, else C op(Q), op the `operation` (a
// complex Q has no plain transpose). The k = tau.length vectors are the first columns of
// each matrix of `a`, which has m rows when `left`, n otherwise.
struct HouseholderApplyPlan {
  ScalarType type = ScalarType::kFloat;
  bool left = true;
  Operation operation = Operation::kNone;
  Matrices a;
  Vectors tau;
  Matrices c;
};

// Eigenvalues (ascending, real: `values` holds the real type) and, with `vectors`, the
// orthonormal eigenvectors (in the columns of `a`, overwriting it) of each Hermitian n x n
// matrix, of which only `triangle` is read (syevd, heevd for complex). Without `vectors`
// `a` is still destroyed. info[b]: 0, or > 0 when the algorithm did not converge.
struct EighPlan {
  ScalarType type = ScalarType::kFloat;
  Triangle triangle = Triangle::kLower;
  bool vectors = true;
  Matrices a;
  Vectors values;
  Vectors info;
};

// The singular value decomposition A = U diag(S) V^H of each m x n matrix of `a` (which
// it destroys), k = min(m, n): S (real, descending) always, U and V with compute_uv. The
// driver is torch.linalg.svd's, each with cuSOLVER's interface:
//   gesvd   QR iterations; m >= n; U m x m (full_matrices) or m x k; `v` receives V^H
//           (cuSOLVER's VT), n x n or k x n
//   gesvdj  Jacobi; U m x m or m x k; `v` receives V, n x n or n x k; info k + 1 when it
//           did not converge (the caller may redo those matrices with gesvd)
//   gesvda  approximate, for tall matrices: m >= n; U m x k, `v` receives V, n x k
//           (full_matrices does not apply)
// info[b]: 0, or > 0 when the algorithm did not converge.
struct SvdPlan {
  ScalarType type = ScalarType::kFloat;
  SvdDriver driver = SvdDriver::kGesvdj;
  bool compute_uv = true;
  bool full_matrices = false;
  Matrices a;
  Vectors s;
  Matrices u;
  Matrices v;
  Vectors info;
};

// Triangular solve (cuBLAS's trsm, which stock's triangular_solve_stub calls): op(A) X = B
// (`left`) or X op(A) = B for each matrix of `b` (X overwrites it), with m = A's columns
// when `left` (as stock's, which lets A and B be taller than m) and B's rows otherwise,
// n = B's columns; only `triangle` of A is read, and a unit diagonal assumed with
// `unit_diagonal`. a.offsets has one entry per matrix of `b`.
struct TriangularSolvePlan {
  ScalarType type = ScalarType::kFloat;
  bool left = true;
  Triangle triangle = Triangle::kLower;
  Operation operation = Operation::kNone;
  bool unit_diagonal = false;
  Matrices a;
  Matrices b;
};

// Each plan's checks: the shapes its routine takes (square where it must be, U and V
// sized for the SVD's mode), leading dimensions >= max(1, rows), one offset per matrix in
// every operand. Throw std::invalid_argument saying what is wrong.
void check(const CholeskyPlan& plan);
void check(const CholeskySolvePlan& plan);
void check(const LuFactorPlan& plan);
void check(const LuSolvePlan& plan);
void check(const QrPlan& plan);
void check(const HouseholderProductPlan& plan);
void check(const HouseholderApplyPlan& plan);
void check(const EighPlan& plan);
void check(const SvdPlan& plan);
void check(const TriangularSolvePlan& plan);

// Device memory for an executor's work areas: `bytes` on the current device, usable on
// the plan's stream in stream order, held by the caller until execute returns.
using WorkspaceAllocator = std::function<void*(std::int64_t bytes)>;

// Defined by the variant linked into _CUDAC: checks the plan, then queues its routine for
// every matrix of the batch on `stream` (of the current device).
void execute(const CholeskyPlan& plan, torch_core::StreamHandle stream, const WorkspaceAllocator& workspace);
void execute(const CholeskySolvePlan& plan, torch_core::StreamHandle stream, const WorkspaceAllocator& workspace);
void execute(const LuFactorPlan& plan, torch_core::StreamHandle stream, const WorkspaceAllocator& workspace);
void execute(const LuSolvePlan& plan, torch_core::StreamHandle stream, const WorkspaceAllocator& workspace);
void execute(const QrPlan& plan, torch_core::StreamHandle stream, const WorkspaceAllocator& workspace);
void execute(const HouseholderProductPlan& plan, torch_core::StreamHandle stream,
             const WorkspaceAllocator& workspace);
void execute(const HouseholderApplyPlan& plan, torch_core::StreamHandle stream, const WorkspaceAllocator& workspace);
void execute(const EighPlan& plan, torch_core::StreamHandle stream, const WorkspaceAllocator& workspace);
void execute(const SvdPlan& plan, torch_core::StreamHandle stream, const WorkspaceAllocator& workspace);
void execute(const TriangularSolvePlan& plan, torch_core::StreamHandle stream, const WorkspaceAllocator& workspace);

}  // namespace torch_cuda::solver
