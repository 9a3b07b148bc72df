// The simulated variant's executor of solver_plan.h's plans: the LAPACK routines cuSOLVER's
// dense API mirrors, run on the host on the stream's worker by the pinned torch's own CPU
// kernels (the CPU slots of the same DispatchStubs: LAPACK's potrf, getrf, getrs, geqrf,
// orgqr/ungqr, syevd/heevd, gesdd, trsm). Each matrix is read and written through the plan's
// offsets and leading dimension, and only what the cuSOLVER routine writes is written back
// (potrf: its triangle; getrs: B), so a wrong layout in a plan fails here as on a GPU.
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

#include <ATen/core/Tensor.h>
#include <ATen/native/BatchLinearAlgebra.h>
#include <ATen/native/TransposeType.h>
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

template <typename T>
struct Real {
  using type = T;
};
template <typename T>
struct Real<c10::complex<T>> {
  using type = T;
};

// What the real executor calls for `type`: cusolverDn + S/D/C/Z + the routine.
void record(ScalarType type, const char* real_routine, const char* complex_routine, std::size_t times) {
  static const char kLetter[] = {'S', 'D', 'C', 'Z'};
  const std::string name =
      std::string("cusolverDn") + kLetter[static_cast<int>(type)] + (is_complex(type) ? complex_routine : real_routine);
  for (std::size_t i = 0; i < times; ++i) simulated::record_library_call(name.c_str());
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

void run(torch_core::StreamHandle stream, std::function<void()> work) {
  torch_core::simulated_device::enqueue(c10::DeviceType::CUDA, stream, std::move(work));
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
  using R = typename Real<T>::type;
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
  // gesvd's VT is V^H itself; gesvdj and gesvda give V, column-major.
  scatter<T>(plan.driver == SvdDriver::kGesvd ? vh : vh.mH().transpose(-2, -1).contiguous().transpose(-2, -1), plan.v);
}

}  // namespace

void execute(const CholeskyPlan& plan, torch_core::StreamHandle stream, const WorkspaceAllocator&) {
  check(plan);
  if (plan.a.offsets.empty() || plan.a.rows == 0) return;
  record(plan.type, "potrf", "potrf", plan.a.offsets.size());
  run(stream, [plan] {
    with_type(plan.type, [&](auto tag) {
      using T = decltype(tag);
      const bool upper = plan.triangle == Triangle::kUpper;
      at::Tensor a = gather<T>(plan.a);
      at::Tensor info = infos(plan.a.offsets.size());
      lapack(at::native::cholesky_stub)(a, info, upper);
      scatter<T>(a, plan.a, [upper](std::int64_t i, std::int64_t j) { return upper ? i <= j : i >= j; });
      scatter<int>(info, plan.info);
    });
  });
}

void execute(const LuFactorPlan& plan, torch_core::StreamHandle stream, const WorkspaceAllocator&) {
  check(plan);
  if (plan.a.offsets.empty() || plan.a.rows == 0 || plan.a.cols == 0) return;
  record(plan.type, "getrf", "getrf", plan.a.offsets.size());
  run(stream, [plan] {
    with_type(plan.type, [&](auto tag) {
      using T = decltype(tag);
      at::Tensor a = gather<T>(plan.a);
      at::Tensor info = infos(plan.a.offsets.size());
      if (plan.pivot) {
        at::Tensor pivots = at::empty({static_cast<std::int64_t>(plan.a.offsets.size()), plan.pivots.length}, at::kInt);
        lapack(at::native::lu_factor_stub)(a, pivots, info, true);
        scatter<int>(pivots, plan.pivots);
      } else {
        for (std::size_t b = 0; b < plan.a.offsets.size(); ++b) {
          T* matrix = static_cast<T*>(a.data_ptr()) + b * plan.a.rows * plan.a.cols;
          info.data_ptr<int>()[b] = lu_without_pivoting(matrix, plan.a.rows, plan.a.cols);
        }
      }
      scatter<T>(a, plan.a);
      scatter<int>(info, plan.info);
    });
  });
}

void execute(const LuSolvePlan& plan, torch_core::StreamHandle stream, const WorkspaceAllocator&) {
  check(plan);
  if (plan.b.offsets.empty() || plan.b.rows == 0 || plan.b.cols == 0) return;
  record(plan.type, "getrs", "getrs", plan.b.offsets.size());
  run(stream, [plan] {
    with_type(plan.type, [&](auto tag) {
      using T = decltype(tag);
      at::Tensor lu = gather<T>(plan.lu);
      at::Tensor pivots = gather<int>(plan.pivots);
      at::Tensor b = gather<T>(plan.b);
      lapack(at::native::lu_solve_stub)(lu, pivots, b, transpose_type(plan.operation));
      scatter<T>(b, plan.b);
    });
  });
}

void execute(const QrPlan& plan, torch_core::StreamHandle stream, const WorkspaceAllocator&) {
  check(plan);
  if (plan.a.offsets.empty() || plan.a.rows == 0 || plan.a.cols == 0) return;
  record(plan.type, "geqrf", "geqrf", plan.a.offsets.size());
  run(stream, [plan] {
    with_type(plan.type, [&](auto tag) {
      using T = decltype(tag);
      at::Tensor a = gather<T>(plan.a);
      at::Tensor tau = at::empty({static_cast<std::int64_t>(plan.a.offsets.size()), plan.tau.length}, a.scalar_type());
      lapack(at::native::geqrf_stub)(a, tau);
      scatter<T>(a, plan.a);
      scatter<T>(tau, plan.tau);
    });
  });
}

void execute(const HouseholderProductPlan& plan, torch_core::StreamHandle stream, const WorkspaceAllocator&) {
  check(plan);
  if (plan.a.offsets.empty() || plan.a.rows == 0 || plan.a.cols == 0) return;
  record(plan.type, "orgqr", "ungqr", plan.a.offsets.size());
  run(stream, [plan] {
    with_type(plan.type, [&](auto tag) {
      using T = decltype(tag);
      at::Tensor a = gather<T>(plan.a);
      at::Tensor tau = gather<T>(plan.tau);
      lapack(at::native::orgqr_stub)(a, tau);
      scatter<T>(a, plan.a);
    });
  });
}

void execute(const EighPlan& plan, torch_core::StreamHandle stream, const WorkspaceAllocator&) {
  check(plan);
  if (plan.a.offsets.empty() || plan.a.rows == 0) return;
  record(plan.type, "syevd", "heevd", plan.a.offsets.size());
  run(stream, [plan] {
    with_type(plan.type, [&](auto tag) {
      using T = decltype(tag);
      using R = typename Real<T>::type;
      at::Tensor a = gather<T>(plan.a);
      at::Tensor values = at::empty({static_cast<std::int64_t>(plan.a.offsets.size()), plan.a.rows},
                                    c10::CppTypeToScalarType<R>::value);
      at::Tensor info = infos(plan.a.offsets.size());
      lapack(at::native::linalg_eigh_stub)(values, a, info, plan.triangle == Triangle::kUpper,
                                   plan.vectors);
      scatter<T>(a, plan.a);  // the eigenvectors, or what is left of A without them
      scatter<R>(values, plan.values);
      scatter<int>(info, plan.info);
    });
  });
}

void execute(const SvdPlan& plan, torch_core::StreamHandle stream, const WorkspaceAllocator&) {
  check(plan);
  if (plan.a.offsets.empty() || plan.a.rows == 0 || plan.a.cols == 0) return;
  const char* routine = plan.driver == SvdDriver::kGesvd    ? "gesvd"
                        : plan.driver == SvdDriver::kGesvdj ? "gesvdj"
                                                            : "gesvdaStridedBatched";
  record(plan.type, routine, routine, plan.a.offsets.size());
  run(stream, [plan] { with_type(plan.type, [&](auto tag) { svd<decltype(tag)>(plan); }); });
}

void execute(const TriangularSolvePlan& plan, torch_core::StreamHandle stream, const WorkspaceAllocator&) {
  check(plan);
  if (plan.b.offsets.empty() || plan.b.rows == 0 || plan.b.cols == 0) return;
  static const char kLetter[] = {'S', 'D', 'C', 'Z'};
  const std::string name = std::string("cublas") + kLetter[static_cast<int>(plan.type)] + "trsm";
  for (std::size_t i = 0; i < plan.b.offsets.size(); ++i) simulated::record_library_call(name.c_str());
  run(stream, [plan] {
    with_type(plan.type, [&](auto tag) {
      using T = decltype(tag);
      at::Tensor a = gather<T>(plan.a);
      at::Tensor b = gather<T>(plan.b);
      lapack(at::native::triangular_solve_stub)(a, b, plan.left, plan.triangle == Triangle::kUpper,
                                                transpose_type(plan.operation), plan.unit_diagonal);
      scatter<T>(b, plan.b);
    });
  });
}

}  // namespace torch_cuda::solver
