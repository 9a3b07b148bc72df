// The simulated variant's executor of solver_plan.h's plans: the LAPACK routines cuSOLVER's
// dense API mirrors, run on the host on the stream's worker by the pinned torch's own CPU
// kernels (the CPU slots of the same DispatchStubs, and the CPU's potrs: LAPACK's potrf,
// potrs, getrf, getrs, geqrf, orgqr/ungqr, ormqr/unmqr, syevd/heevd, gesdd, trsm). Each
// matrix is read and written through the plan's offsets and leading dimension, and only
// what the cuSOLVER routine writes is written back (potrf: its triangle; getrs, potrs,
// ormqr, trsm: B or C), so a wrong layout in a plan fails here as on a GPU.
// Where cuSOLVER and LAPACK differ, this follows cuSOLVER: getrf without pivoting (LAPACK
// has none) divides by a zero pivot as cuSOLVER's does, and an SVD of a matrix with
// non-finite values gives NaN with "did not converge" (gesvdj's and gesvda's k + 1,
// gesvd's count of unconverged superdiagonals) where LAPACK reports an illegal argument.
// The triangular solve is BLAS's trsm, as cuBLAS's. Each call the real executor makes (one
// per matrix) is recorded (library_calls.h).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <ATen/native/BatchLinearAlgebra.h>
#include <ATen/native/TransposeType.h>
#include <ATen/ops/_cholesky_solve_helper.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/zeros.h>
#include <c10/util/complex.h>

#include "third_device/torch_cuda/simulated/csrc/library_calls.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/linalg/solver_plan.h"
#include "torch_core/csrc/simulated/simulated_device.h"

namespace torch_cuda::solver {
namespace {

template <typename F>
void with_type(ScalarType type, F&& f) {
  switch (type) {
    case ScalarType::kFloat: return f(float{});
    case ScalarType::kDouble: return f(double{});
    case ScalarType::kComplexFloat: return f(c10::complex<float>{});
    case ScalarType::kComplexDouble: return f(c10::complex<double>{});
  }
  throw std::invalid_argument("cuSOLVER: unknown scalar type");
}

// The real type of T (T itself, or a complex type's parts).
template <typename T>
using Real = typename c10::scalar_value_type<T>::type;

// What the real executor calls for `type`: `library` + S/D/C/Z + the routine.
std::string call_name(ScalarType type, const char* library, const char* real_routine, const char* complex_routine) {
  static const char kLetter[] = {'S', 'D', 'C', 'Z'};
  return std::string(library) + kLetter[static_cast<int>(type)] + (is_complex(type) ? complex_routine : real_routine);
}

std::string cusolver_call(ScalarType type, const char* routine) {
  return call_name(type, "cusolverDn", routine, routine);
}

// The plan's matrices as a CPU batch in LAPACK's layout: (batch, rows, cols), column-major.
template <typename T>
at::Tensor gather(const Matrices& m) {
  const auto batch = static_cast<std::int64_t>(m.offsets.size());
  at::Tensor t = at::empty({batch, m.cols, m.rows}, c10::CppTypeToScalarType<T>::value).transpose(-2, -1);
  T* dst = static_cast<T*>(t.data_ptr());
  const T* src = static_cast<const T*>(m.data);
  for (std::int64_t b = 0; b < batch; ++b) {
    for (std::int64_t j = 0; j < m.cols; ++j) {
      for (std::int64_t i = 0; i < m.rows; ++i) dst[(b * m.cols + j) * m.rows + i] = src[m.offsets[b] + i + j * m.ld];
    }
  }
  return t;
}

// Writes back the elements (i, j) of each matrix for which keep(i, j).
template <typename T, typename Keep>
void scatter(const at::Tensor& t, const Matrices& m, Keep keep) {
  const T* src = static_cast<const T*>(t.data_ptr());
  T* dst = static_cast<T*>(m.data);
  for (std::size_t b = 0; b < m.offsets.size(); ++b) {
    for (std::int64_t j = 0; j < m.cols; ++j) {
      for (std::int64_t i = 0; i < m.rows; ++i) {
        if (keep(i, j)) dst[m.offsets[b] + i + j * m.ld] = src[(b * m.cols + j) * m.rows + i];
      }
    }
  }
}

template <typename T>
void scatter(const at::Tensor& t, const Matrices& m) {
  scatter<T>(t, m, [](std::int64_t, std::int64_t) { return true; });
}

template <typename T>
at::Tensor gather(const Vectors& v) {
  const auto batch = static_cast<std::int64_t>(v.offsets.size());
  at::Tensor t = at::empty({batch, v.length}, c10::CppTypeToScalarType<T>::value);
  T* dst = static_cast<T*>(t.data_ptr());
  for (std::int64_t b = 0; b < batch; ++b) {
    std::copy_n(static_cast<const T*>(v.data) + v.offsets[b], v.length, dst + b * v.length);
  }
  return t;
}

template <typename T>
void scatter(const at::Tensor& t, const Vectors& v) {
  const T* src = static_cast<const T*>(t.data_ptr());
  for (std::size_t b = 0; b < v.offsets.size(); ++b) {
    std::copy_n(src + b * v.length, v.length, static_cast<T*>(v.data) + v.offsets[b]);
  }
}

// The pinned torch's CPU kernel of a solver stub: its DEFAULT slot (these LAPACK wrappers
// are one function for every CPU capability). DispatchStub's own dispatch is not exported.
template <typename Stub>
typename Stub::FnPtr lapack(const Stub&) {
  const typename Stub::FnPtr kernel = Stub::DEFAULT;
  if (kernel == nullptr) throw std::logic_error("the pinned torch has no CPU kernel for a solver stub");
  return kernel;
}

at::native::TransposeType transpose_type(Operation operation) {
  switch (operation) {
    case Operation::kNone: return at::native::TransposeType::NoTranspose;
    case Operation::kTranspose: return at::native::TransposeType::Transpose;
    case Operation::kConjugateTranspose: return at::native::TransposeType::ConjTranspose;
  }
  throw std::invalid_argument("cuSOLVER: unknown operation");
}

at::Tensor infos(std::size_t batch) { return at::zeros({static_cast<std::int64_t>(batch)}, at::kInt); }

// Checks `plan`; unless `matrices` is empty, records `call` once a matrix (as the real
// executor makes it) and queues body(T{}, plan) on `stream`'s worker, T the plan's type.
template <typename Plan, typename Body>
void queue(const Plan& plan, const Matrices& matrices, const std::string& call, torch_core::StreamHandle stream,
           Body body) {
  check(plan);
  if (matrices.offsets.empty() || matrices.rows == 0 || matrices.cols == 0) return;
  for (std::size_t i = 0; i < matrices.offsets.size(); ++i) simulated::record_library_call(call.c_str());
  torch_core::simulated_device::enqueue(c10::DeviceType::CUDA, stream, [plan, body] {
    with_type(plan.type, [&](auto tag) { body(tag, plan); });
  });
}

// getrf without row swaps, in place on one column-major m x n matrix (ld m).
template <typename T>
int lu_without_pivoting(T* a, std::int64_t m, std::int64_t n) {
  int info = 0;
  for (std::int64_t k = 0; k < std::min(m, n); ++k) {
    const T pivot = a[k + k * m];
    if (pivot == T(0) && info == 0) info = static_cast<int>(k + 1);
    for (std::int64_t i = k + 1; i < m; ++i) a[i + k * m] /= pivot;
    for (std::int64_t j = k + 1; j < n; ++j) {
      for (std::int64_t i = k + 1; i < m; ++i) a[i + j * m] -= a[i + k * m] * a[k + j * m];
    }
  }
  return info;
}

template <typename T>
bool finite(const T* a, std::int64_t count) {
  for (std::int64_t i = 0; i < count; ++i) {
    if constexpr (c10::is_complex<T>::value) {
      if (!std::isfinite(a[i].real()) || !std::isfinite(a[i].imag())) return false;
    } else if (!std::isfinite(a[i])) {
      return false;
    }
  }
  return true;
}

template <typename T>
void svd(const SvdPlan& plan) {
  using R = Real<T>;
  const std::int64_t m = plan.a.rows, n = plan.a.cols, k = std::min(m, n);
  const bool full = plan.full_matrices && plan.driver != SvdDriver::kGesvda;
  const auto batch = static_cast<std::int64_t>(plan.a.offsets.size());
  at::Tensor a = gather<T>(plan.a);
  // LAPACK refuses non-finite input; cuSOLVER runs and does not converge. Such matrices
  // are zeroed for LAPACK and their results replaced below.
  std::vector<bool> nonfinite(batch);
  for (std::int64_t b = 0; b < batch; ++b) {
    T* matrix = static_cast<T*>(a.data_ptr()) + b * m * n;
    nonfinite[b] = !finite(matrix, m * n);
    if (nonfinite[b]) std::fill_n(matrix, m * n, T(0));
  }
  const std::int64_t u_cols = full ? m : k, v_rows = full ? n : k;
  at::Tensor u = plan.compute_uv ? at::empty({batch, u_cols, m}, a.scalar_type()).transpose(-2, -1) : at::Tensor();
  at::Tensor vh = plan.compute_uv ? at::empty({batch, n, v_rows}, a.scalar_type()).transpose(-2, -1) : at::Tensor();
  at::Tensor s = at::empty({batch, k}, c10::CppTypeToScalarType<R>::value);
  at::Tensor info = infos(batch);
  lapack(at::native::svd_stub)(a, full, plan.compute_uv, std::nullopt, u, s, vh, info);
  const int unconverged = plan.driver == SvdDriver::kGesvd ? static_cast<int>(std::max<std::int64_t>(1, k - 1))
                                                           : static_cast<int>(k + 1);
  for (std::int64_t b = 0; b < batch; ++b) {
    if (!nonfinite[b]) continue;
    info.data_ptr<int>()[b] = unconverged;
    s[b].fill_(std::numeric_limits<R>::quiet_NaN());
    if (plan.compute_uv) {
      u[b].fill_(std::numeric_limits<R>::quiet_NaN());
      vh[b].fill_(std::numeric_limits<R>::quiet_NaN());
    }
  }
  scatter<T>(a, plan.a);  // destroyed, as cuSOLVER leaves it
  scatter<R>(s, plan.s);
  scatter<int>(info, plan.info);
  if (!plan.compute_uv) return;
  scatter<T>(u, plan.u);
  // gesvd's VT is V^H itself; gesvdj and gesvda give V, column-major (scatter reads the
  // memory: the conjugation is resolved first).
  if (plan.driver == SvdDriver::kGesvd) return scatter<T>(vh, plan.v);
  scatter<T>(vh.mH().transpose(-2, -1).resolve_conj().contiguous().transpose(-2, -1), plan.v);
}

}  // namespace

void execute(const CholeskyPlan& plan, torch_core::StreamHandle stream, const WorkspaceAllocator&) {
  queue(plan, plan.a, cusolver_call(plan.type, "potrf"), stream, [](auto tag, const CholeskyPlan& p) {
    using T = decltype(tag);
    const bool upper = p.triangle == Triangle::kUpper;
    at::Tensor a = gather<T>(p.a);
    at::Tensor info = infos(p.a.offsets.size());
    lapack(at::native::cholesky_stub)(a, info, upper);
    scatter<T>(a, p.a, [upper](std::int64_t i, std::int64_t j) { return upper ? i <= j : i >= j; });
    scatter<int>(info, p.info);
  });
}

void execute(const CholeskySolvePlan& plan, torch_core::StreamHandle stream, const WorkspaceAllocator&) {
  queue(plan, plan.b, cusolver_call(plan.type, "potrs"), stream, [](auto tag, const CholeskySolvePlan& p) {
    using T = decltype(tag);
    // The CPU's helper is LAPACK's potrs on copies of its arguments.
    const bool upper = p.triangle == Triangle::kUpper;
    const at::Tensor x = at::_cholesky_solve_helper(gather<T>(p.b), gather<T>(p.factor), upper);
    scatter<T>(x.transpose(-2, -1).contiguous().transpose(-2, -1), p.b);
  });
}

void execute(const LuFactorPlan& plan, torch_core::StreamHandle stream, const WorkspaceAllocator&) {
  queue(plan, plan.a, cusolver_call(plan.type, "getrf"), stream, [](auto tag, const LuFactorPlan& p) {
    using T = decltype(tag);
    at::Tensor a = gather<T>(p.a);
    at::Tensor info = infos(p.a.offsets.size());
    if (p.pivot) {
      at::Tensor pivots = at::empty({static_cast<std::int64_t>(p.a.offsets.size()), p.pivots.length}, at::kInt);
      lapack(at::native::lu_factor_stub)(a, pivots, info, true);
      scatter<int>(pivots, p.pivots);
    } else {
      for (std::size_t b = 0; b < p.a.offsets.size(); ++b) {
        T* matrix = static_cast<T*>(a.data_ptr()) + b * p.a.rows * p.a.cols;
        info.data_ptr<int>()[b] = lu_without_pivoting(matrix, p.a.rows, p.a.cols);
      }
    }
    scatter<T>(a, p.a);
    scatter<int>(info, p.info);
  });
}

void execute(const LuSolvePlan& plan, torch_core::StreamHandle stream, const WorkspaceAllocator&) {
  queue(plan, plan.b, cusolver_call(plan.type, "getrs"), stream, [](auto tag, const LuSolvePlan& p) {
    using T = decltype(tag);
    at::Tensor lu = gather<T>(p.lu);
    at::Tensor pivots = gather<int>(p.pivots);
    at::Tensor b = gather<T>(p.b);
    lapack(at::native::lu_solve_stub)(lu, pivots, b, transpose_type(p.operation));
    scatter<T>(b, p.b);
  });
}

void execute(const QrPlan& plan, torch_core::StreamHandle stream, const WorkspaceAllocator&) {
  queue(plan, plan.a, cusolver_call(plan.type, "geqrf"), stream, [](auto tag, const QrPlan& p) {
    using T = decltype(tag);
    at::Tensor a = gather<T>(p.a);
    at::Tensor tau = at::empty({static_cast<std::int64_t>(p.a.offsets.size()), p.tau.length}, a.scalar_type());
    lapack(at::native::geqrf_stub)(a, tau);
    scatter<T>(a, p.a);
    scatter<T>(tau, p.tau);
  });
}

void execute(const HouseholderProductPlan& plan, torch_core::StreamHandle stream, const WorkspaceAllocator&) {
  const std::string call = call_name(plan.type, "cusolverDn", "orgqr", "ungqr");
  queue(plan, plan.a, call, stream, [](auto tag, const HouseholderProductPlan& p) {
    using T = decltype(tag);
    at::Tensor a = gather<T>(p.a);
    at::Tensor tau = gather<T>(p.tau);
    lapack(at::native::orgqr_stub)(a, tau);
    scatter<T>(a, p.a);
  });
}

void execute(const HouseholderApplyPlan& plan, torch_core::StreamHandle stream, const WorkspaceAllocator&) {
  const std::string call = call_name(plan.type, "cusolverDn", "ormqr", "unmqr");
  queue(plan, plan.c, call, stream, [](auto tag, const HouseholderApplyPlan& p) {
    using T = decltype(tag);
    at::Tensor a = gather<T>(p.a);
    at::Tensor tau = gather<T>(p.tau);
    at::Tensor c = gather<T>(p.c);
    lapack(at::native::ormqr_stub)(a, tau, c, p.left, p.operation != Operation::kNone);
    scatter<T>(c, p.c);
  });
}

void execute(const EighPlan& plan, torch_core::StreamHandle stream, const WorkspaceAllocator&) {
  const std::string call = call_name(plan.type, "cusolverDn", "syevd", "heevd");
  queue(plan, plan.a, call, stream, [](auto tag, const EighPlan& p) {
    using T = decltype(tag);
    using R = Real<T>;
    at::Tensor a = gather<T>(p.a);
    at::Tensor values =
        at::empty({static_cast<std::int64_t>(p.a.offsets.size()), p.a.rows}, c10::CppTypeToScalarType<R>::value);
    at::Tensor info = infos(p.a.offsets.size());
    lapack(at::native::linalg_eigh_stub)(values, a, info, p.triangle == Triangle::kUpper, p.vectors);
    scatter<T>(a, p.a);  // the eigenvectors, or what is left of A without them
    scatter<R>(values, p.values);
    scatter<int>(info, p.info);
  });
}

void execute(const SvdPlan& plan, torch_core::StreamHandle stream, const WorkspaceAllocator&) {
  const char* routine = plan.driver == SvdDriver::kGesvd    ? "gesvd"
                        : plan.driver == SvdDriver::kGesvdj ? "gesvdj"
                                                            : "gesvdaStridedBatched";
  queue(plan, plan.a, cusolver_call(plan.type, routine), stream,
        [](auto tag, const SvdPlan& p) { svd<decltype(tag)>(p); });
}

void execute(const TriangularSolvePlan& plan, torch_core::StreamHandle stream, const WorkspaceAllocator&) {
  const std::string call = call_name(plan.type, "cublas", "trsm", "trsm");
  queue(plan, plan.b, call, stream, [](auto tag, const TriangularSolvePlan& p) {
    using T = decltype(tag);
    at::Tensor a = gather<T>(p.a);
    at::Tensor b = gather<T>(p.b);
    lapack(at::native::triangular_solve_stub)(a, b, p.left, p.triangle == Triangle::kUpper,
                                              transpose_type(p.operation), p.unit_diagonal);
    scatter<T>(b, p.b);
  });
}

}  // namespace torch_cuda::solver
