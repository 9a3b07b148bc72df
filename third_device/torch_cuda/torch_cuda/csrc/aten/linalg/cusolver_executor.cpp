// The cuSOLVER executor of solver_plan.h's plans (the real variant): cuSOLVER's dense
// 32-bit API, typed per scalar (cusolverDn<t><routine>), one call per matrix of the batch
// on the calling thread's handle bound to the caller's stream, work areas sized by the
// routine's _bufferSize and taken from the caller's allocator (the caching allocator's,
// as ATen's); the triangular solve is cuBLAS's trsm on the thread's cuBLAS handle.
#include <cuComplex.h>
#include <cublas_v2.h>
#include <cusolverDn.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/blas/cublas_check.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/blas/cublas_handle.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/linalg/cusolver_handle.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/linalg/solver_plan.h"

namespace torch_cuda::solver {
namespace {

template <typename T>
struct Routines;

// Each scalar's routines: S, D, C, Z; orgqr, ormqr and syevd are ungqr, unmqr and heevd
// for complex.
#define TORCH_CUDA_SOLVER_ROUTINES(T, R, P, ORGQR, ORMQR, SYEVD)                                  \
  template <>                                                                              \
  struct Routines<T> {                                                                     \
    using Real = R;                                                                        \
    static constexpr auto potrf_buffer = cusolverDn##P##potrf_bufferSize;                  \
    static constexpr auto potrf = cusolverDn##P##potrf;                                    \
    static constexpr auto potrs = cusolverDn##P##potrs;                                    \
    static constexpr auto getrf_buffer = cusolverDn##P##getrf_bufferSize;                  \
    static constexpr auto getrf = cusolverDn##P##getrf;                                    \
    static constexpr auto getrs = cusolverDn##P##getrs;                                    \
    static constexpr auto geqrf_buffer = cusolverDn##P##geqrf_bufferSize;                  \
    static constexpr auto geqrf = cusolverDn##P##geqrf;                                    \
    static constexpr auto orgqr_buffer = cusolverDn##P##ORGQR##_bufferSize;                \
    static constexpr auto orgqr = cusolverDn##P##ORGQR;                                    \
    static constexpr auto ormqr_buffer = cusolverDn##P##ORMQR##_bufferSize;                \
    static constexpr auto ormqr = cusolverDn##P##ORMQR;                                    \
    static constexpr auto syevd_buffer = cusolverDn##P##SYEVD##_bufferSize;                \
    static constexpr auto syevd = cusolverDn##P##SYEVD;                                    \
    static constexpr auto gesvd_buffer = cusolverDn##P##gesvd_bufferSize;                  \
    static constexpr auto gesvd = cusolverDn##P##gesvd;                                    \
    static constexpr auto gesvdj_buffer = cusolverDn##P##gesvdj_bufferSize;                \
    static constexpr auto gesvdj = cusolverDn##P##gesvdj;                                  \
    static constexpr auto gesvda_buffer = cusolverDn##P##gesvdaStridedBatched_bufferSize;  \
    static constexpr auto gesvda = cusolverDn##P##gesvdaStridedBatched;                    \
    static constexpr auto trsm = cublas##P##trsm;                                          \
  };
TORCH_CUDA_SOLVER_ROUTINES(float, float, S, orgqr, ormqr, syevd)
TORCH_CUDA_SOLVER_ROUTINES(double, double, D, orgqr, ormqr, syevd)
TORCH_CUDA_SOLVER_ROUTINES(cuComplex, float, C, ungqr, unmqr, heevd)
TORCH_CUDA_SOLVER_ROUTINES(cuDoubleComplex, double, Z, ungqr, unmqr, heevd)
#undef TORCH_CUDA_SOLVER_ROUTINES

// Calls f(T{}) with the plan's element type.
template <typename F>
void with_type(ScalarType type, F&& f) {
  switch (type) {
    case ScalarType::kFloat: return f(float{});
    case ScalarType::kDouble: return f(double{});
    case ScalarType::kComplexFloat: return f(cuComplex{});
    case ScalarType::kComplexDouble: return f(cuDoubleComplex{});
  }
  throw std::invalid_argument("cuSOLVER: unknown scalar type");
}

int as_int(std::int64_t value, const char* what) {
  if (value > INT_MAX) {
    throw std::invalid_argument(std::string("cuSOLVER: ") + what + " " + std::to_string(value) +
                                " exceeds the 32-bit API's range (2^31 - 1)");
  }
  return static_cast<int>(value);
}

template <typename T>
T* at(const Matrices& m, std::size_t b) {
  return static_cast<T*>(m.data) + m.offsets[b];
}

template <typename T>
T* at(const Vectors& v, std::size_t b) {
  return static_cast<T*>(v.data) + v.offsets[b];
}

// `count` elements of T from the caller's allocator; null for none.
template <typename T>
T* work_area(const WorkspaceAllocator& workspace, std::int64_t count) {
  return count > 0 ? static_cast<T*>(workspace(count * static_cast<std::int64_t>(sizeof(T)))) : nullptr;
}

cublasFillMode_t fill_mode(Triangle triangle) {
  return triangle == Triangle::kUpper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
}

cublasOperation_t operation(Operation op) {
  switch (op) {
    case Operation::kNone: return CUBLAS_OP_N;
    case Operation::kTranspose: return CUBLAS_OP_T;
    case Operation::kConjugateTranspose: return CUBLAS_OP_C;
  }
  throw std::invalid_argument("cuSOLVER: unknown operation");
}

bool empty(const Matrices& m) { return m.offsets.empty() || m.rows == 0 || m.cols == 0; }

// Checks `plan`; unless `matrices` is empty, calls f(T{}, handle) with the plan's element
// type T and the thread's cuSOLVER handle bound to `stream`.
template <typename Plan, typename F>
void run_typed(const Plan& plan, const Matrices& matrices, torch_core::StreamHandle stream, F&& f) {
  check(plan);
  if (empty(matrices)) return;
  cusolverDnHandle_t handle = current_handle(static_cast<cudaStream_t>(stream));
  with_type(plan.type, [&](auto tag) { f(tag, handle); });
}

void run_gesvdj(const SvdPlan& plan, cusolverDnHandle_t handle, const WorkspaceAllocator& workspace);
void run_gesvd_or_gesvda(const SvdPlan& plan, cusolverDnHandle_t handle, const WorkspaceAllocator& workspace);

}  // namespace

void execute(const CholeskyPlan& plan, torch_core::StreamHandle stream, const WorkspaceAllocator& workspace) {
  run_typed(plan, plan.a, stream, [&](auto tag, cusolverDnHandle_t handle) {
    using T = decltype(tag);
    const int n = as_int(plan.a.rows, "n"), lda = as_int(plan.a.ld, "lda");
    const cublasFillMode_t uplo = fill_mode(plan.triangle);
    int lwork = 0;
    check_cusolver(Routines<T>::potrf_buffer(handle, uplo, n, at<T>(plan.a, 0), lda, &lwork), "potrf_bufferSize");
    T* work = work_area<T>(workspace, lwork);
    for (std::size_t b = 0; b < plan.a.offsets.size(); ++b) {
      check_cusolver(Routines<T>::potrf(handle, uplo, n, at<T>(plan.a, b), lda, work, lwork, at<int>(plan.info, b)),
                     "potrf");
    }
  });
}

void execute(const CholeskySolvePlan& plan, torch_core::StreamHandle stream, const WorkspaceAllocator& workspace) {
  run_typed(plan, plan.b, stream, [&](auto tag, cusolverDnHandle_t handle) {
    using T = decltype(tag);
    const int n = as_int(plan.b.rows, "n"), nrhs = as_int(plan.b.cols, "nrhs");
    const int lda = as_int(plan.factor.ld, "lda"), ldb = as_int(plan.b.ld, "ldb");
    int* info = work_area<int>(workspace, 1);  // potrs only reports invalid arguments, checked before
    for (std::size_t b = 0; b < plan.b.offsets.size(); ++b) {
      check_cusolver(Routines<T>::potrs(handle, fill_mode(plan.triangle), n, nrhs, at<T>(plan.factor, b), lda,
                                        at<T>(plan.b, b), ldb, info),
                     "potrs");
    }
  });
}

void execute(const LuFactorPlan& plan, torch_core::StreamHandle stream, const WorkspaceAllocator& workspace) {
  run_typed(plan, plan.a, stream, [&](auto tag, cusolverDnHandle_t handle) {
    using T = decltype(tag);
    const int m = as_int(plan.a.rows, "m"), n = as_int(plan.a.cols, "n"), lda = as_int(plan.a.ld, "lda");
    int lwork = 0;
    check_cusolver(Routines<T>::getrf_buffer(handle, m, n, at<T>(plan.a, 0), lda, &lwork), "getrf_bufferSize");
    T* work = work_area<T>(workspace, lwork);
    for (std::size_t b = 0; b < plan.a.offsets.size(); ++b) {
      int* pivots = plan.pivot ? at<int>(plan.pivots, b) : nullptr;  // null: no row swaps
      check_cusolver(Routines<T>::getrf(handle, m, n, at<T>(plan.a, b), lda, work, pivots, at<int>(plan.info, b)),
                     "getrf");
    }
  });
}

void execute(const LuSolvePlan& plan, torch_core::StreamHandle stream, const WorkspaceAllocator& workspace) {
  run_typed(plan, plan.b, stream, [&](auto tag, cusolverDnHandle_t handle) {
    using T = decltype(tag);
    const int n = as_int(plan.b.rows, "n"), nrhs = as_int(plan.b.cols, "nrhs");
    const int lda = as_int(plan.lu.ld, "lda"), ldb = as_int(plan.b.ld, "ldb");
    int* info = work_area<int>(workspace, 1);  // getrs only reports invalid arguments, checked before
    for (std::size_t b = 0; b < plan.b.offsets.size(); ++b) {
      check_cusolver(Routines<T>::getrs(handle, operation(plan.operation), n, nrhs, at<T>(plan.lu, b), lda,
                                        at<int>(plan.pivots, b), at<T>(plan.b, b), ldb, info),
                     "getrs");
    }
  });
}

void execute(const QrPlan& plan, torch_core::StreamHandle stream, const WorkspaceAllocator& workspace) {
  run_typed(plan, plan.a, stream, [&](auto tag, cusolverDnHandle_t handle) {
    using T = decltype(tag);
    const int m = as_int(plan.a.rows, "m"), n = as_int(plan.a.cols, "n"), lda = as_int(plan.a.ld, "lda");
    int lwork = 0;
    check_cusolver(Routines<T>::geqrf_buffer(handle, m, n, at<T>(plan.a, 0), lda, &lwork), "geqrf_bufferSize");
    T* work = work_area<T>(workspace, lwork);
    int* info = work_area<int>(workspace, 1);  // geqrf only reports invalid arguments
    for (std::size_t b = 0; b < plan.a.offsets.size(); ++b) {
      check_cusolver(
          Routines<T>::geqrf(handle, m, n, at<T>(plan.a, b), lda, at<T>(plan.tau, b), work, lwork, info), "geqrf");
    }
  });
}

void execute(const HouseholderProductPlan& plan, torch_core::StreamHandle stream,
             const WorkspaceAllocator& workspace) {
  run_typed(plan, plan.a, stream, [&](auto tag, cusolverDnHandle_t handle) {
    using T = decltype(tag);
    const int m = as_int(plan.a.rows, "m"), n = as_int(plan.a.cols, "n"), lda = as_int(plan.a.ld, "lda");
    const int k = as_int(plan.tau.length, "k");
    int lwork = 0;
    check_cusolver(Routines<T>::orgqr_buffer(handle, m, n, k, at<T>(plan.a, 0), lda, at<T>(plan.tau, 0), &lwork),
                   "orgqr_bufferSize");
    T* work = work_area<T>(workspace, lwork);
    int* info = work_area<int>(workspace, 1);
    for (std::size_t b = 0; b < plan.a.offsets.size(); ++b) {
      check_cusolver(
          Routines<T>::orgqr(handle, m, n, k, at<T>(plan.a, b), lda, at<T>(plan.tau, b), work, lwork, info), "orgqr");
    }
  });
}

void execute(const HouseholderApplyPlan& plan, torch_core::StreamHandle stream,
             const WorkspaceAllocator& workspace) {
  run_typed(plan, plan.c, stream, [&](auto tag, cusolverDnHandle_t handle) {
    using T = decltype(tag);
    const cublasSideMode_t side = plan.left ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT;
    const cublasOperation_t trans = operation(plan.operation);
    const int m = as_int(plan.c.rows, "m"), n = as_int(plan.c.cols, "n"), k = as_int(plan.tau.length, "k");
    const int lda = as_int(plan.a.ld, "lda"), ldc = as_int(plan.c.ld, "ldc");
    int lwork = 0;
    check_cusolver(Routines<T>::ormqr_buffer(handle, side, trans, m, n, k, at<T>(plan.a, 0), lda, at<T>(plan.tau, 0),
                                             at<T>(plan.c, 0), ldc, &lwork),
                   "ormqr_bufferSize");
    T* work = work_area<T>(workspace, lwork);
    int* info = work_area<int>(workspace, 1);
    for (std::size_t b = 0; b < plan.c.offsets.size(); ++b) {
      check_cusolver(Routines<T>::ormqr(handle, side, trans, m, n, k, at<T>(plan.a, b), lda, at<T>(plan.tau, b),
                                        at<T>(plan.c, b), ldc, work, lwork, info),
                     "ormqr");
    }
  });
}

void execute(const EighPlan& plan, torch_core::StreamHandle stream, const WorkspaceAllocator& workspace) {
  run_typed(plan, plan.a, stream, [&](auto tag, cusolverDnHandle_t handle) {
    using T = decltype(tag);
    using Real = typename Routines<T>::Real;
    const int n = as_int(plan.a.rows, "n"), lda = as_int(plan.a.ld, "lda");
    const cusolverEigMode_t jobz = plan.vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
    const cublasFillMode_t uplo = fill_mode(plan.triangle);
    int lwork = 0;
    check_cusolver(
        Routines<T>::syevd_buffer(handle, jobz, uplo, n, at<T>(plan.a, 0), lda, at<Real>(plan.values, 0), &lwork),
        "syevd_bufferSize");
    T* work = work_area<T>(workspace, lwork);
    for (std::size_t b = 0; b < plan.a.offsets.size(); ++b) {
      check_cusolver(Routines<T>::syevd(handle, jobz, uplo, n, at<T>(plan.a, b), lda, at<Real>(plan.values, b), work,
                                        lwork, at<int>(plan.info, b)),
                     "syevd");
    }
  });
}

void execute(const SvdPlan& plan, torch_core::StreamHandle stream, const WorkspaceAllocator& workspace) {
  check(plan);
  if (empty(plan.a)) return;
  cusolverDnHandle_t handle = current_handle(static_cast<cudaStream_t>(stream));
  if (plan.driver == SvdDriver::kGesvdj) return run_gesvdj(plan, handle, workspace);
  run_gesvd_or_gesvda(plan, handle, workspace);
}

void execute(const TriangularSolvePlan& plan, torch_core::StreamHandle stream, const WorkspaceAllocator&) {
  check(plan);
  if (empty(plan.b)) return;
  cublasHandle_t handle = blas::current_handle(static_cast<cudaStream_t>(stream));
  with_type(plan.type, [&](auto tag) {
    using T = decltype(tag);
    const int m = as_int(plan.left ? plan.a.cols : plan.b.rows, "m"), n = as_int(plan.b.cols, "n");
    const int lda = as_int(plan.a.ld, "lda"), ldb = as_int(plan.b.ld, "ldb");
    const cublasSideMode_t side = plan.left ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT;
    const cublasDiagType_t diag = plan.unit_diagonal ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;
    T one{};
    reinterpret_cast<typename Routines<T>::Real*>(&one)[0] = 1;  // 1, or 1 + 0i
    for (std::size_t b = 0; b < plan.b.offsets.size(); ++b) {
      TORCH_CUDABLAS_CHECK(Routines<T>::trsm(handle, side, fill_mode(plan.triangle), operation(plan.operation), diag, m,
                                             n, &one, at<T>(plan.a, b), lda, at<T>(plan.b, b), ldb));
    }
  });
}

namespace {

// gesvdj with ATen's parameters (tolerance: the type's epsilon; at most 400 sweeps). It
// needs U and V even for values only, so those come from the work area then.
void run_gesvdj(const SvdPlan& plan, cusolverDnHandle_t handle, const WorkspaceAllocator& workspace) {
  gesvdjInfo_t params = nullptr;
  check_cusolver(cusolverDnCreateGesvdjInfo(&params), "cusolverDnCreateGesvdjInfo");
  try {
    with_type(plan.type, [&](auto tag) {
      using T = decltype(tag);
      using Real = typename Routines<T>::Real;
      check_cusolver(cusolverDnXgesvdjSetTolerance(params, std::numeric_limits<Real>::epsilon()),
                     "cusolverDnXgesvdjSetTolerance");
      check_cusolver(cusolverDnXgesvdjSetMaxSweeps(params, 400), "cusolverDnXgesvdjSetMaxSweeps");
      const int m = as_int(plan.a.rows, "m"), n = as_int(plan.a.cols, "n"), lda = as_int(plan.a.ld, "lda");
      const int econ = plan.full_matrices ? 0 : 1;
      const cusolverEigMode_t jobz = plan.compute_uv ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
      const int k = std::min(m, n), u_cols = econ ? k : m, v_cols = econ ? k : n;
      T* const u_scratch = plan.compute_uv ? nullptr : work_area<T>(workspace, std::int64_t{m} * u_cols);
      T* const v_scratch = plan.compute_uv ? nullptr : work_area<T>(workspace, std::int64_t{n} * v_cols);
      const int ldu = plan.compute_uv ? as_int(plan.u.ld, "ldu") : std::max(1, m);
      const int ldv = plan.compute_uv ? as_int(plan.v.ld, "ldv") : std::max(1, n);
      auto u_of = [&](std::size_t b) { return plan.compute_uv ? at<T>(plan.u, b) : u_scratch; };
      auto v_of = [&](std::size_t b) { return plan.compute_uv ? at<T>(plan.v, b) : v_scratch; };
      int lwork = 0;
      check_cusolver(Routines<T>::gesvdj_buffer(handle, jobz, econ, m, n, at<T>(plan.a, 0), lda,
                                                at<Real>(plan.s, 0), u_of(0), ldu, v_of(0), ldv, &lwork, params),
                     "gesvdj_bufferSize");
      T* work = work_area<T>(workspace, lwork);
      for (std::size_t b = 0; b < plan.a.offsets.size(); ++b) {
        check_cusolver(Routines<T>::gesvdj(handle, jobz, econ, m, n, at<T>(plan.a, b), lda, at<Real>(plan.s, b),
                                           u_of(b), ldu, v_of(b), ldv, work, lwork, at<int>(plan.info, b), params),
                       "gesvdj");
      }
    });
  } catch (...) {
    cusolverDnDestroyGesvdjInfo(params);
    throw;
  }
  check_cusolver(cusolverDnDestroyGesvdjInfo(params), "cusolverDnDestroyGesvdjInfo");
}

// gesvd (U and VT, or values only) and gesvdaStridedBatched (one matrix a call, rank n).
void run_gesvd_or_gesvda(const SvdPlan& plan, cusolverDnHandle_t handle, const WorkspaceAllocator& workspace) {
  with_type(plan.type, [&](auto tag) {
    using T = decltype(tag);
    using Real = typename Routines<T>::Real;
    const int m = as_int(plan.a.rows, "m"), n = as_int(plan.a.cols, "n"), lda = as_int(plan.a.ld, "lda");
    const int ldu = plan.compute_uv ? as_int(plan.u.ld, "ldu") : std::max(1, m);
    const int ldv = plan.compute_uv ? as_int(plan.v.ld, "ldv") : std::max(1, n);
    int lwork = 0;
    if (plan.driver == SvdDriver::kGesvd) {
      const signed char job = plan.compute_uv ? (plan.full_matrices ? 'A' : 'S') : 'N';
      check_cusolver(Routines<T>::gesvd_buffer(handle, m, n, &lwork), "gesvd_bufferSize");
      T* work = work_area<T>(workspace, lwork);
      Real* rwork = work_area<Real>(workspace, n);  // the unconverged superdiagonal, when info > 0
      for (std::size_t b = 0; b < plan.a.offsets.size(); ++b) {
        T* u = plan.compute_uv ? at<T>(plan.u, b) : nullptr;
        T* vt = plan.compute_uv ? at<T>(plan.v, b) : nullptr;
        check_cusolver(Routines<T>::gesvd(handle, job, job, m, n, at<T>(plan.a, b), lda, at<Real>(plan.s, b), u, ldu,
                                          vt, ldv, work, lwork, rwork, at<int>(plan.info, b)),
                       "gesvd");
      }
      return;
    }
    // gesvda writes U and V even for values only.
    const cusolverEigMode_t jobz = plan.compute_uv ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
    T* const u_scratch = plan.compute_uv ? nullptr : work_area<T>(workspace, std::int64_t{m} * n);
    T* const v_scratch = plan.compute_uv ? nullptr : work_area<T>(workspace, std::int64_t{n} * n);
    auto u_of = [&](std::size_t b) { return plan.compute_uv ? at<T>(plan.u, b) : u_scratch; };
    auto v_of = [&](std::size_t b) { return plan.compute_uv ? at<T>(plan.v, b) : v_scratch; };
    // One matrix a call: the strides only need to be valid.
    const long long stride_a = static_cast<long long>(lda) * n, stride_u = static_cast<long long>(ldu) * n;
    const long long stride_v = static_cast<long long>(ldv) * n;
    check_cusolver(Routines<T>::gesvda_buffer(handle, jobz, n, m, n, at<T>(plan.a, 0), lda, stride_a,
                                              at<Real>(plan.s, 0), n, u_of(0), ldu, stride_u, v_of(0), ldv, stride_v,
                                              &lwork, 1),
                   "gesvdaStridedBatched_bufferSize");
    T* work = work_area<T>(workspace, lwork);
    for (std::size_t b = 0; b < plan.a.offsets.size(); ++b) {
      double residual = 0;  // ||A - U S V^H||_F, which torch does not report
      check_cusolver(Routines<T>::gesvda(handle, jobz, n, m, n, at<T>(plan.a, b), lda, stride_a, at<Real>(plan.s, b),
                                         n, u_of(b), ldu, stride_u, v_of(b), ldv, stride_v, work, lwork,
                                         at<int>(plan.info, b), &residual, 1),
                     "gesvdaStridedBatched");
    }
  });
}

}  // namespace
}  // namespace torch_cuda::solver
