// The CUDA slots of stock ATen's linear-algebra DispatchStubs (cholesky_stub,
// cholesky_inverse_stub, lu_factor_stub, lu_solve_stub, geqrf_stub, orgqr_stub,
// ormqr_stub, lstsq_stub, linalg_eigh_stub, svd_stub, triangular_solve_stub: cuBLAS's
// trsm) and _cholesky_solve_helper's CUDA kernel, in
// both variants: each describes its tensors as a solver_plan.h plan and hands it to the
// variant's executor on the current stream. Stock's structured kernels around them
// (linalg_cholesky_ex, linalg_lu_factor_ex, linalg_lu_solve, _linalg_solve_ex,
// linalg_inv_ex, _linalg_det, linalg_qr, _linalg_eigh, _linalg_svd,
// linalg_solve_triangular, ...; the operator list
// solver_operators.txt) keep their checks, layouts and error messages. What stock's CUDA
// stubs do around cuSOLVER is kept too: identity pivots and zeroed NaN after LU without
// pivoting, orgqr with no reflectors giving the identity, gesvdj's check for matrices
// that did not converge (a warning, then gesvd for them when no driver was named), gesvd
// and gesvda on the conjugate transpose of a wide matrix.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <ATen/core/Tensor.h>
#include <ATen/native/BatchLinearAlgebra.h>
#include <ATen/native/LinearAlgebraUtils.h>
#include <ATen/native/TransposeType.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_strided.h>
#include <ATen/ops/nan_to_num.h>
#include <ATen/ops/scalar_tensor.h>
#include <ATen/ops/where.h>
#include <c10/core/DeviceGuard.h>
#include <c10/util/Exception.h>
#include <torch/library.h>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/linalg/solver_plan.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_backend.h"
#include "torch_core/csrc/aten/engine/stub_slot.h"

namespace torch_cuda::solver {
namespace {

ScalarType scalar_type_of(const at::Tensor& t) {
  switch (t.scalar_type()) {
    case at::kFloat: return ScalarType::kFloat;
    case at::kDouble: return ScalarType::kDouble;
    case at::kComplexFloat: return ScalarType::kComplexFloat;
    case at::kComplexDouble: return ScalarType::kComplexDouble;
    default:
      TORCH_CHECK(false, "cuSOLVER supports float, double, complex64 and complex128, not ", t.scalar_type());
  }
}

// Element offsets of each matrix (the last two dimensions) or vector (the last one) of
// `t`, over its batch dimensions in row-major order; expanded dimensions repeat.
std::vector<std::int64_t> batch_offsets(const at::Tensor& t, int64_t inner_dims) {
  const int64_t batch_dims = t.dim() - inner_dims;
  std::int64_t count = 1;
  for (int64_t d = 0; d < batch_dims; ++d) count *= t.size(d);
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(count), 0);
  std::vector<std::int64_t> index(static_cast<std::size_t>(std::max<int64_t>(batch_dims, 0)), 0);
  for (std::int64_t i = 0; i < count; ++i) {
    std::int64_t offset = 0;
    for (int64_t d = 0; d < batch_dims; ++d) offset += index[d] * t.stride(d);
    offsets[i] = offset;
    for (int64_t d = batch_dims - 1; d >= 0; --d) {
      if (++index[d] < t.size(d)) break;
      index[d] = 0;
    }
  }
  return offsets;
}

// A batch of column-major matrices (stride 1 down a column), as stock's layouts give them.
Matrices matrices(const at::Tensor& t) {
  const int64_t rows = t.size(-2), cols = t.size(-1);
  TORCH_INTERNAL_ASSERT(rows <= 1 || t.stride(-2) == 1, "cuSOLVER needs column-major matrices, got strides ",
                        t.strides());
  return Matrices{t.data_ptr(), rows, cols, cols <= 1 ? std::max<int64_t>(1, rows) : t.stride(-1),
                  batch_offsets(t, 2)};
}

Vectors vectors(const at::Tensor& t) {
  TORCH_INTERNAL_ASSERT(t.size(-1) <= 1 || t.stride(-1) == 1, "cuSOLVER needs contiguous vectors");
  return Vectors{t.data_ptr(), t.size(-1), batch_offsets(t, 1)};
}

// `t`'s matrices (inner_dims 2) or vectors (1) expanded over the batch dimensions of the
// matrices `like`: a factorisation or reflectors serving every matrix they broadcast to.
at::Tensor over_batch_of(const at::Tensor& t, const at::Tensor& like, int64_t inner_dims) {
  std::vector<int64_t> shape(like.sizes().begin(), like.sizes().end() - 2);
  shape.insert(shape.end(), t.sizes().end() - inner_dims, t.sizes().end());
  return t.expand(shape);
}

// Batched identity matrices (or their first columns) in place.
void fill_identity(const at::Tensor& t) {
  t.fill_(0);
  t.diagonal(0, -2, -1).fill_(1);
}

// One int32 a matrix (info): all of `t`'s dimensions are batch dimensions.
Vectors per_matrix(const at::Tensor& t) { return vectors(t.unsqueeze(-1)); }

Operation operation_of(at::native::TransposeType trans) {
  switch (trans) {
    case at::native::TransposeType::NoTranspose: return Operation::kNone;
    case at::native::TransposeType::Transpose: return Operation::kTranspose;
    case at::native::TransposeType::ConjTranspose: return Operation::kConjugateTranspose;
  }
  TORCH_CHECK(false, "cuSOLVER: unknown TransposeType");
}

// Runs `plan` on the current stream, its work areas from the caching allocator (freed in
// stream order when the call returns).
template <typename Plan>
void run(const Plan& plan, const at::Tensor& like) {
  std::vector<at::Tensor> held;
  const auto options = like.options().dtype(at::kByte);
  execute(plan, backend().streams().current_handle(like.device().index()), [&](std::int64_t bytes) {
    held.push_back(at::empty({bytes}, options));
    return held.back().data_ptr();
  });
}

at::Tensor column_major_empty(at::IntArrayRef sizes, const at::TensorOptions& options) {
  return at::empty_strided(sizes, at::native::batched_matrix_contiguous_strides(sizes, true), options);
}

// A column-major copy (conjugate and negative bits resolved) that a routine may destroy.
at::Tensor column_major_copy(const at::Tensor& t) {
  at::Tensor copy = column_major_empty(t.sizes(), t.options());
  copy.copy_(t);
  return copy;
}

void cholesky(const at::Tensor& input, const at::Tensor& info, bool upper) {
  if (input.numel() == 0) return;
  CholeskyPlan plan{scalar_type_of(input), upper ? Triangle::kUpper : Triangle::kLower, matrices(input),
                    per_matrix(info)};
  run(plan, input);
}

// X = A^-1 B for a Cholesky factor of A (potrs) into `b`, the factor broadcast over b's batch.
void cholesky_solve_into(const at::Tensor& factor, const at::Tensor& b, bool upper) {
  if (b.numel() == 0) return;
  CholeskySolvePlan plan{scalar_type_of(b), upper ? Triangle::kUpper : Triangle::kLower,
                         matrices(over_batch_of(factor, b, 2)), matrices(b)};
  run(plan, b);
}

// _cholesky_solve_helper's CUDA kernel (stock's _cholesky_solve_helper_cuda): cholesky_solve
// has broadcast the batches; potrs reports only invalid arguments, so there is no info.
at::Tensor cholesky_solve_helper(const at::Tensor& self, const at::Tensor& A, bool upper) {
  const c10::DeviceGuard guard(self.device());  // a registration of our own: no generated guard
  at::Tensor x = column_major_copy(self);
  cholesky_solve_into(column_major_copy(A), x, upper);
  return x;
}

// The inverse from a Cholesky factor (stock's cuSOLVER path): potrs against the identity.
// `infos` stays as it is: potrs reports no failure of the matrix.
at::Tensor& cholesky_inverse(at::Tensor& result, at::Tensor& /*infos*/, bool upper) {
  if (result.numel() == 0) return result;
  const at::Tensor factor = column_major_copy(result);
  fill_identity(result);
  cholesky_solve_into(factor, result, upper);
  return result;
}

void lu_factor(const at::Tensor& input, const at::Tensor& pivots, const at::Tensor& infos, bool compute_pivots) {
  if (input.numel() == 0) return;
  LuFactorPlan plan{scalar_type_of(input), compute_pivots, matrices(input), vectors(pivots), per_matrix(infos)};
  run(plan, input);
  if (compute_pivots) return;
  // As stock's cuSOLVER path: a zero pivot's NaN become 0, and the pivots are 1..k.
  if (input.is_complex()) {
    input.copy_(at::where(input.eq(input), input, at::scalar_tensor(0., input.options())));
  } else {
    at::nan_to_num_(const_cast<at::Tensor&>(input), 0, std::numeric_limits<double>::infinity(),
                    -std::numeric_limits<double>::infinity());
  }
  const int64_t k = std::min(input.size(-2), input.size(-1));
  pivots.copy_(at::arange(1, k + 1, input.options().dtype(at::kInt)));
}

void lu_solve(const at::Tensor& lu, const at::Tensor& pivots, const at::Tensor& b, at::native::TransposeType trans) {
  if (b.numel() == 0) return;
  LuSolvePlan plan{scalar_type_of(b), operation_of(trans), matrices(over_batch_of(lu, b, 2)),
                   vectors(over_batch_of(pivots, b, 1)), matrices(b)};
  run(plan, b);
}

void geqrf(const at::Tensor& input, const at::Tensor& tau) {
  if (input.numel() == 0) return;
  QrPlan plan{scalar_type_of(input), matrices(input), vectors(tau)};
  run(plan, input);
}

at::Tensor& orgqr(at::Tensor& result, const at::Tensor& tau) {
  if (result.numel() == 0) return result;
  if (tau.size(-1) == 0) {  // no reflectors: the first columns of the identity
    fill_identity(result);
    return result;
  }
  HouseholderProductPlan plan{scalar_type_of(result), matrices(result), vectors(tau)};
  run(plan, result);
  return result;
}

// ormqr_stub: op(Q) C or C op(Q), Q from geqrf's reflectors in `input` and `tau`, batches
// as C's (expanded where they broadcast).
void apply_q(const at::Tensor& input, const at::Tensor& tau, const at::Tensor& other, bool left, bool transpose) {
  if (other.numel() == 0) return;
  const Operation operation =
      !transpose ? Operation::kNone : other.is_complex() ? Operation::kConjugateTranspose : Operation::kTranspose;
  HouseholderApplyPlan plan{scalar_type_of(other), left, operation, matrices(over_batch_of(input, other, 2)),
                            vectors(over_batch_of(tau, other, 1)), matrices(other)};
  run(plan, other);
}

void triangular_solve(const at::Tensor& A, const at::Tensor& B, bool left, bool upper,
                      at::native::TransposeType transpose, bool unitriangular) {
  if (B.numel() == 0) return;
  // Stock's kernels read A's memory as column-major whatever its strides: a row-major A
  // (linalg_solve_triangular passes one) comes with `upper` and `transpose` describing
  // that memory, A^T.
  const at::Tensor memory = A.size(-2) <= 1 || A.stride(-2) == 1 ? A : A.mT();
  TriangularSolvePlan plan{scalar_type_of(B), left, upper ? Triangle::kUpper : Triangle::kLower,
                           operation_of(transpose), unitriangular, matrices(over_batch_of(memory, B, 2)),
                           matrices(B)};
  run(plan, B);
}

// lstsq_stub: stock's "gels" on CUDA (linalg_lstsq_gels, the only driver CUDA takes):
// QR of A, then Q^H B and R X = Q^H B for m >= n; for m < n the QR of A^H, R^H Z = B, the
// rows below m zeroed, then X = Q Z. `b` (max(m, n) x nrhs, column-major, B's broadcast
// batch) is overwritten by X; A's batch may broadcast against it. rank and singular values
// are not computed by gels, and infos stay 0 (gels does not check the rank).
void lstsq(const at::Tensor& a, at::Tensor& b, at::Tensor& /*rank*/, at::Tensor& /*singular_values*/,
           at::Tensor& /*infos*/, double /*rcond*/, std::string /*driver_name*/) {
  const int64_t m = a.size(-2), n = a.size(-1);
  const at::Tensor qr = m >= n ? a : column_major_copy(a.mH());
  std::vector<int64_t> tau_shape(qr.sizes().begin(), qr.sizes().end() - 1);
  tau_shape.back() = std::min(m, n);
  const at::Tensor tau = at::empty(tau_shape, a.options());
  geqrf(qr, tau);
  if (m >= n) {
    apply_q(qr, tau, b, /*left=*/true, /*transpose=*/true);
    triangular_solve(qr, b, /*left=*/true, /*upper=*/true, at::native::TransposeType::NoTranspose, false);
    return;
  }
  const auto adjoint = a.is_complex() ? at::native::TransposeType::ConjTranspose : at::native::TransposeType::Transpose;
  triangular_solve(qr, b, /*left=*/true, /*upper=*/true, adjoint, false);
  b.narrow(-2, m, n - m).zero_();
  apply_q(qr, tau, b, /*left=*/true, /*transpose=*/false);
}

void linalg_eigh(const at::Tensor& values, const at::Tensor& vectors_, const at::Tensor& infos, bool upper,
                 bool compute_vectors) {
  if (vectors_.numel() == 0) return;
  EighPlan plan{scalar_type_of(vectors_), upper ? Triangle::kUpper : Triangle::kLower, compute_vectors,
                matrices(vectors_), vectors(values), per_matrix(infos)};
  run(plan, vectors_);
}

// --- SVD --------------------------------------------------------------------------------

const char* const kSvdDoc = "Check doc at https://pytorch.org/docs/stable/generated/torch.linalg.svd.html";

SvdDriver svd_driver(std::string_view name) {
  if (name == "gesvd") return SvdDriver::kGesvd;
  if (name == "gesvdj") return SvdDriver::kGesvdj;
  if (name == "gesvda") return SvdDriver::kGesvda;
  TORCH_CHECK(false, "torch.linalg.svd: unknown svd driver ", name, " in svd_cusolver computation. ", kSvdDoc);
}

// (batch, rows, cols) views of batched matrices, (batch, length) of batched vectors.
at::Tensor flat_matrices(const at::Tensor& t) { return t.dim() == 2 ? t.unsqueeze(0) : t.flatten(0, -3); }
at::Tensor flat_vectors(const at::Tensor& t) { return t.dim() == 1 ? t.unsqueeze(0) : t.flatten(0, -2); }

// The SVD of the (batch, m, n) `a` into U, S, Vh (same batch; U and Vh sized as
// torch.linalg.svd's outputs) and info (batch), with `driver`. gesvd and gesvda take m >= n,
// so a wide matrix is decomposed as its conjugate transpose: A^H = U' S V'^H, U = V', V = U'.
void svd_with(const at::Tensor& a, SvdDriver driver, bool full_matrices, bool compute_uv, const at::Tensor& u,
              const at::Tensor& s, const at::Tensor& vh, const at::Tensor& info) {
  const bool swapped = driver != SvdDriver::kGesvdj && a.size(-2) < a.size(-1);
  at::Tensor work = column_major_copy(swapped ? a.mH() : a);
  const int64_t m = work.size(-2), n = work.size(-1), k = std::min(m, n), batch = work.size(0);
  const bool full = full_matrices && driver != SvdDriver::kGesvda;
  at::Tensor u_work, v_work;  // U'; V' (gesvdj, gesvda) or V'^H (gesvd)
  if (compute_uv) {
    u_work = column_major_empty({batch, m, full ? m : k}, a.options());
    const bool gesvd = driver == SvdDriver::kGesvd;
    const int64_t v_rows = gesvd ? (full ? n : k) : n, v_cols = gesvd ? n : (full ? n : k);
    v_work = column_major_empty({batch, v_rows, v_cols}, a.options());
  }
  SvdPlan plan{scalar_type_of(a), driver, compute_uv, full_matrices, matrices(work), vectors(s),
               compute_uv ? matrices(u_work) : Matrices{}, compute_uv ? matrices(v_work) : Matrices{},
               per_matrix(info)};
  run(plan, a);
  if (!compute_uv) return;
  const at::Tensor v_prime = driver == SvdDriver::kGesvd ? v_work.mH() : v_work;
  const at::Tensor& left = swapped ? v_prime : u_work;           // U
  const at::Tensor right_h = swapped ? u_work.mH() : v_prime.mH();  // V^H
  // gesvda's U and V have k columns whatever full_matrices asks (stock leaves the rest).
  u.narrow(-1, 0, left.size(-1)).copy_(left);
  vh.narrow(-2, 0, right_h.size(-2)).copy_(right_h);
}

void svd(const at::Tensor& A, bool full_matrices, bool compute_uv, const std::optional<std::string_view>& driver,
         const at::Tensor& U, const at::Tensor& S, const at::Tensor& Vh, const at::Tensor& info) {
  if (A.numel() == 0) return;
  const SvdDriver chosen = svd_driver(driver.value_or("gesvdj"));
  const at::Tensor a = flat_matrices(A), s = flat_vectors(S), infos = info.reshape({-1});
  const at::Tensor u = compute_uv ? flat_matrices(U) : U, vh = compute_uv ? flat_matrices(Vh) : Vh;
  svd_with(a, chosen, full_matrices, compute_uv, u, s, vh, infos);
  if (chosen == SvdDriver::kGesvd) return;
  // gesvdj and gesvda report a matrix that did not converge as k + 1 (a synchronisation,
  // as stock's _check_gesvdj_convergence).
  const int64_t k = std::min(A.size(-2), A.size(-1));
  const at::Tensor host_infos = infos.cpu();
  std::vector<int64_t> unconverged;
  for (int64_t b = 0; b < host_infos.numel(); ++b) {
    if (host_infos.data_ptr<int>()[b] == k + 1) unconverged.push_back(b);
  }
  if (unconverged.empty()) return;
  std::ostringstream batches;
  for (std::size_t i = 0; i < unconverged.size(); ++i) batches << (i ? ", " : "") << unconverged[i];
  TORCH_WARN_ONCE("torch.linalg.svd: During SVD computation with the selected cusolver driver, batches ",
                  batches.str(), " failed to converge. ",
                  driver.has_value() ? "It is recommended to redo this SVD with another driver. "
                                     : "A more accurate method will be used to compute the SVD as a fallback. ",
                  kSvdDoc);
  if (driver.has_value()) return;
  for (const int64_t b : unconverged) {
    svd_with(a.narrow(0, b, 1), SvdDriver::kGesvd, full_matrices, compute_uv, compute_uv ? u.narrow(0, b, 1) : u,
             s.narrow(0, b, 1), compute_uv ? vh.narrow(0, b, 1) : vh, infos.narrow(0, b, 1));
  }
}

const bool registered = [] {
  using torch_core::engine::set_slot;
  constexpr auto kCuda = c10::DeviceType::CUDA;
  set_slot(at::native::cholesky_stub, kCuda, &cholesky);
  set_slot(at::native::lu_factor_stub, kCuda, &lu_factor);
  set_slot(at::native::lu_solve_stub, kCuda, &lu_solve);
  set_slot(at::native::geqrf_stub, kCuda, &geqrf);
  set_slot(at::native::orgqr_stub, kCuda, &orgqr);
  set_slot(at::native::linalg_eigh_stub, kCuda, &linalg_eigh);
  set_slot(at::native::svd_stub, kCuda, &svd);
  set_slot(at::native::triangular_solve_stub, kCuda, &triangular_solve);
  set_slot(at::native::cholesky_inverse_stub, kCuda, &cholesky_inverse);
  set_slot(at::native::ormqr_stub, kCuda, &apply_q);
  set_slot(at::native::lstsq_stub, kCuda, &lstsq);
  return true;
}();

// _cholesky_solve_helper's CUDA entry is CUDA-specific (not a stub): registered by hand.
TORCH_LIBRARY_IMPL(aten, CUDA, m) { m.impl("_cholesky_solve_helper", &cholesky_solve_helper); }

}  // namespace
}  // namespace torch_cuda::solver
