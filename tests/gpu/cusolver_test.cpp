// The cuSOLVER executor of the dense solver plans
// (third_device/torch_cuda/torch_cuda/csrc/aten/linalg), torch-free; the plans' own checks
// are solver_plan_test's.
//
// With a GPU: each routine on a
// batch of two matrices stored with a leading dimension larger than their rows and apart
// by more than a matrix, against what it must satisfy on the host (L L^T = A with the
// other triangle untouched, A X = B by LU and by the Cholesky factor, Q^T Q = I, Q R = A
// and ormqr's Q, A v = w v, U S V^T = A, the triangular solve's residual) and the infos
// of a matrix that is not positive-definite. Without one: says why and checks that a call
// fails with a clear error.
#include <cuComplex.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/gpu/test_util.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/linalg/solver_plan.h"

namespace {

using gpu_test::check;
using gpu_test::contains;
using gpu_test::DeviceBuffer;
namespace solver = torch_cuda::solver;

// Two matrices of rows x cols, leading dimension ld, the second `gap` elements after the
// first ends (so a plan that ignores ld or the offsets reads the wrong elements).
solver::Matrices two_matrices(void* data, std::int64_t rows, std::int64_t cols, std::int64_t ld) {
  const std::int64_t gap = 3;
  return solver::Matrices{data, rows, cols, ld, {0, ld * cols + gap}};
}

std::int64_t storage(const solver::Matrices& m) { return m.offsets.back() + m.ld * m.cols; }

solver::Vectors two_vectors(void* data, std::int64_t length) {
  return solver::Vectors{data, length, {0, length + 1}};
}

// Deterministic values in [-1, 1).
std::vector<double> values(std::size_t count, unsigned seed) {
  std::vector<double> result(count);
  unsigned state = seed * 2654435761u + 1;
  for (auto& v : result) {
    state = state * 1664525u + 1013904223u;
    v = static_cast<double>(state >> 8) / static_cast<double>(1u << 23) - 1.0;
  }
  return result;
}

double element(const std::vector<double>& data, const solver::Matrices& m, std::size_t b, std::int64_t i,
               std::int64_t j) {
  return data[m.offsets[b] + i + j * m.ld];
}

// Work areas from cudaMalloc, freed once the stream is done with them.
class Workspaces {
 public:
  explicit Workspaces(cudaStream_t stream) : stream_(stream) {}
  ~Workspaces() {
    cudaStreamSynchronize(stream_);
    for (void* p : held_) cudaFree(p);
  }
  solver::WorkspaceAllocator allocator() {
    return [this](std::int64_t bytes) {
      void* p = nullptr;
      gpu_test::cuda_ok(cudaMalloc(&p, static_cast<std::size_t>(bytes)), "cudaMalloc workspace");
      held_.push_back(p);
      return p;
    };
  }

 private:
  cudaStream_t stream_;
  std::vector<void*> held_;
};

template <typename T>
std::vector<T> synced(const DeviceBuffer<T>& buffer, cudaStream_t stream) {
  gpu_test::cuda_ok(cudaStreamSynchronize(stream), "sync");
  return buffer.to_host();
}

void cholesky_checks(cudaStream_t stream) {
  const std::int64_t n = 4, ld = 6;
  std::vector<double> host(2 * (ld * n) + 3, 7.0);  // 7: the sentinel the upper part must keep
  solver::Matrices layout = two_matrices(nullptr, n, n, ld);
  const std::vector<double> r = values(n * n, 1);
  for (std::size_t b = 0; b < 2; ++b) {
    for (std::int64_t i = 0; i < n; ++i) {
      for (std::int64_t j = 0; j <= i; ++j) {
        double sum = i == j ? n : 0.0;  // R R^T + n I: positive-definite
        for (std::int64_t k = 0; k < n; ++k) sum += r[i * n + k] * r[j * n + k];
        // The second matrix is not positive-definite from order 2 on.
        if (b == 1 && i == 1 && j == 1) sum = -1.0;
        host[layout.offsets[b] + i + j * ld] = sum;
      }
    }
  }
  DeviceBuffer<double> a(host);
  DeviceBuffer<int> info(std::vector<int>(3, -7));
  layout.data = a.get();
  Workspaces workspaces(stream);
  solver::execute(solver::CholeskyPlan{solver::ScalarType::kDouble, solver::Triangle::kLower, layout,
                                       two_vectors(info.get(), 1)},
                  stream, workspaces.allocator());
  const std::vector<double> l = synced(a, stream);
  const std::vector<int> infos = synced(info, stream);
  check(infos[0] == 0 && infos[2] == 2, "potrf infos: 0, and 2 for the leading minor of order 2: " +
                                            std::to_string(infos[0]) + ", " + std::to_string(infos[2]));
  double worst = 0;
  bool upper_kept = true;
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      if (j > i) {
        upper_kept = upper_kept && element(l, layout, 0, i, j) == 7.0;
        continue;
      }
      double sum = 0;
      for (std::int64_t k = 0; k <= j; ++k) sum += element(l, layout, 0, i, k) * element(l, layout, 0, j, k);
      worst = std::max(worst, std::abs(sum - element(host, layout, 0, i, j)));
    }
  }
  check(worst < 1e-12, "potrf: L L^T = A (" + std::to_string(worst) + ")");
  check(upper_kept, "potrf (lower) leaves the upper triangle as it was");

  // potrs with the first factor, broadcast over two right-hand sides: A X = B.
  const std::int64_t nrhs = 2;
  solver::Matrices b_layout = two_matrices(nullptr, n, nrhs, n);
  const std::vector<double> b_host = values(storage(b_layout), 11);
  DeviceBuffer<double> rhs(b_host);
  b_layout.data = rhs.get();
  solver::Matrices factor{a.get(), n, n, ld, {0, 0}};
  solver::execute(solver::CholeskySolvePlan{solver::ScalarType::kDouble, solver::Triangle::kLower, factor, b_layout},
                  stream, workspaces.allocator());
  const std::vector<double> x = synced(rhs, stream);
  double residual = 0;
  for (std::size_t m = 0; m < 2; ++m) {
    for (std::int64_t c = 0; c < nrhs; ++c) {
      for (std::int64_t i = 0; i < n; ++i) {
        double sum = 0;  // A is symmetric: its lower triangle holds it
        for (std::int64_t k = 0; k < n; ++k) {
          sum += element(host, layout, 0, std::max(i, k), std::min(i, k)) * element(x, b_layout, m, k, c);
        }
        residual = std::max(residual, std::abs(sum - element(b_host, b_layout, m, i, c)));
      }
    }
  }
  check(residual < 1e-12, "potrs: A X = B for a factor broadcast over B (" + std::to_string(residual) + ")");
}

void lu_checks(cudaStream_t stream) {
  const std::int64_t n = 5, ld = 7, nrhs = 2, ldb = 6;
  solver::Matrices a_layout = two_matrices(nullptr, n, n, ld);
  solver::Matrices b_layout = two_matrices(nullptr, n, nrhs, ldb);
  const std::vector<double> a_host = values(storage(a_layout), 2), b_host = values(storage(b_layout), 3);
  for (const auto op : {solver::Operation::kNone, solver::Operation::kTranspose}) {
    DeviceBuffer<double> a(a_host), b(b_host);
    DeviceBuffer<int> pivots(std::vector<int>(2 * n + 1, 0)), info(std::vector<int>(3, -7));
    a_layout.data = a.get();
    b_layout.data = b.get();
    Workspaces workspaces(stream);
    solver::execute(solver::LuFactorPlan{solver::ScalarType::kDouble, true, a_layout, two_vectors(pivots.get(), n),
                                         two_vectors(info.get(), 1)},
                    stream, workspaces.allocator());
    solver::execute(solver::LuSolvePlan{solver::ScalarType::kDouble, op, a_layout, two_vectors(pivots.get(), n),
                                        b_layout},
                    stream, workspaces.allocator());
    const std::vector<double> x = synced(b, stream);
    const std::vector<int> p = synced(pivots, stream), infos = synced(info, stream);
    check(infos[0] == 0 && infos[2] == 0, "getrf infos are 0 for random matrices");
    check(std::all_of(p.begin(), p.begin() + n, [&](int v) { return v >= 1 && v <= n; }), "pivots are 1-based");
    double worst = 0;
    for (std::size_t m = 0; m < 2; ++m) {
      for (std::int64_t c = 0; c < nrhs; ++c) {
        for (std::int64_t i = 0; i < n; ++i) {
          double sum = 0;
          for (std::int64_t k = 0; k < n; ++k) {
            const double aik = op == solver::Operation::kNone ? element(a_host, a_layout, m, i, k)
                                                              : element(a_host, a_layout, m, k, i);
            sum += aik * element(x, b_layout, m, k, c);
          }
          worst = std::max(worst, std::abs(sum - element(b_host, b_layout, m, i, c)));
        }
      }
    }
    check(worst < 1e-10, "getrf + getrs: op(A) X = B (" + std::to_string(worst) + ")");
  }
}

// Complex getrf + getrs with A^H: the complex routines and CUBLAS_OP_C.
void complex_lu_checks(cudaStream_t stream) {
  const std::int64_t n = 3;
  const std::vector<double> re = values(n * n, 4), im = values(n * n, 5);
  std::vector<cuDoubleComplex> a_host(n * n), b_host(n);
  for (std::int64_t i = 0; i < n * n; ++i) a_host[i] = make_cuDoubleComplex(re[i] + (i % (n + 1) == 0 ? 3 : 0), im[i]);
  for (std::int64_t i = 0; i < n; ++i) b_host[i] = make_cuDoubleComplex(1.0 + i, -1.0);
  DeviceBuffer<cuDoubleComplex> a(a_host), b(b_host);
  DeviceBuffer<int> pivots(std::vector<int>(n, 0)), info(std::vector<int>(1, -7));
  const solver::Matrices a_layout{a.get(), n, n, n, {0}};
  Workspaces workspaces(stream);
  solver::execute(solver::LuFactorPlan{solver::ScalarType::kComplexDouble, true, a_layout,
                                       solver::Vectors{pivots.get(), n, {0}}, solver::Vectors{info.get(), 1, {0}}},
                  stream, workspaces.allocator());
  solver::execute(solver::LuSolvePlan{solver::ScalarType::kComplexDouble, solver::Operation::kConjugateTranspose,
                                      a_layout, solver::Vectors{pivots.get(), n, {0}},
                                      solver::Matrices{b.get(), n, 1, n, {0}}},
                  stream, workspaces.allocator());
  const std::vector<cuDoubleComplex> x = synced(b, stream);
  double worst = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    std::complex<double> sum = 0;
    for (std::int64_t k = 0; k < n; ++k) {
      const cuDoubleComplex aki = a_host[k + i * n];  // (A^H)(i, k) = conj(A(k, i))
      sum += std::conj(std::complex<double>(aki.x, aki.y)) * std::complex<double>(x[k].x, x[k].y);
    }
    worst = std::max(worst, std::abs(sum - std::complex<double>(b_host[i].x, b_host[i].y)));
  }
  check(worst < 1e-10, "zgetrf + zgetrs with CUBLAS_OP_C: A^H x = b (" + std::to_string(worst) + ")");
}

void qr_checks(cudaStream_t stream) {
  const std::int64_t m = 6, n = 4, ld = 8;
  solver::Matrices layout = two_matrices(nullptr, m, n, ld);
  const std::vector<double> host = values(storage(layout), 6);
  DeviceBuffer<double> a(host), tau(std::vector<double>(2 * n + 1, 0));
  layout.data = a.get();
  Workspaces workspaces(stream);
  solver::execute(solver::QrPlan{solver::ScalarType::kDouble, layout, two_vectors(tau.get(), n)}, stream,
                  workspaces.allocator());
  const std::vector<double> qr = synced(a, stream);  // R above the diagonal, reflectors below
  solver::execute(solver::HouseholderProductPlan{solver::ScalarType::kDouble, layout, two_vectors(tau.get(), n)},
                  stream, workspaces.allocator());
  const std::vector<double> q = synced(a, stream);
  double orthonormal = 0, product = 0;
  for (std::size_t b = 0; b < 2; ++b) {
    for (std::int64_t i = 0; i < n; ++i) {
      for (std::int64_t j = 0; j < n; ++j) {
        double dot = 0;
        for (std::int64_t k = 0; k < m; ++k) dot += element(q, layout, b, k, i) * element(q, layout, b, k, j);
        orthonormal = std::max(orthonormal, std::abs(dot - (i == j ? 1.0 : 0.0)));
      }
    }
    for (std::int64_t i = 0; i < m; ++i) {
      for (std::int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (std::int64_t k = 0; k <= j; ++k) sum += element(q, layout, b, i, k) * element(qr, layout, b, k, j);
        product = std::max(product, std::abs(sum - element(host, layout, b, i, j)));
      }
    }
  }
  check(orthonormal < 1e-12, "geqrf + orgqr: Q^T Q = I (" + std::to_string(orthonormal) + ")");
  check(product < 1e-12, "geqrf + orgqr: Q R = A (" + std::to_string(product) + ")");

  // ormqr with geqrf's reflectors: Q^T applied to the first n columns of Q gives R's
  // identity part, and Q applied to e_j gives Q's column j.
  solver::Matrices reflectors = layout;
  DeviceBuffer<double> reflector_copy(qr);
  reflectors.data = reflector_copy.get();
  solver::Matrices c_layout = two_matrices(nullptr, m, n, m);
  std::vector<double> identity(storage(c_layout), 0);
  for (std::size_t b = 0; b < 2; ++b) {
    for (std::int64_t j = 0; j < n; ++j) identity[c_layout.offsets[b] + j + j * m] = 1;
  }
  DeviceBuffer<double> c(identity);
  c_layout.data = c.get();
  solver::execute(solver::HouseholderApplyPlan{solver::ScalarType::kDouble, true, solver::Operation::kNone,
                                               reflectors, two_vectors(tau.get(), n), c_layout},
                  stream, workspaces.allocator());
  const std::vector<double> q_columns = synced(c, stream);
  double applied = 0;
  for (std::size_t b = 0; b < 2; ++b) {
    for (std::int64_t i = 0; i < m; ++i) {
      for (std::int64_t j = 0; j < n; ++j) {
        applied = std::max(applied, std::abs(element(q_columns, c_layout, b, i, j) - element(q, layout, b, i, j)));
      }
    }
  }
  check(applied < 1e-12, "ormqr: Q I = orgqr's Q (" + std::to_string(applied) + ")");
}

void eigh_checks(cudaStream_t stream) {
  const std::int64_t n = 4, ld = 5;
  solver::Matrices layout = two_matrices(nullptr, n, n, ld);
  std::vector<double> host = values(storage(layout), 7);
  for (std::size_t b = 0; b < 2; ++b) {  // symmetric, both triangles
    for (std::int64_t i = 0; i < n; ++i) {
      for (std::int64_t j = 0; j < i; ++j) host[layout.offsets[b] + j + i * ld] = host[layout.offsets[b] + i + j * ld];
    }
  }
  DeviceBuffer<double> a(host), w(std::vector<double>(2 * n + 1, 0));
  DeviceBuffer<int> info(std::vector<int>(3, -7));
  layout.data = a.get();
  Workspaces workspaces(stream);
  solver::execute(solver::EighPlan{solver::ScalarType::kDouble, solver::Triangle::kUpper, true, layout,
                                   two_vectors(w.get(), n), two_vectors(info.get(), 1)},
                  stream, workspaces.allocator());
  const std::vector<double> v = synced(a, stream), values_ = synced(w, stream);
  const std::vector<int> infos = synced(info, stream);
  check(infos[0] == 0 && infos[2] == 0, "syevd infos are 0");
  double residual = 0;
  bool ascending = true;
  for (std::size_t b = 0; b < 2; ++b) {
    const double* eigen = values_.data() + (b == 0 ? 0 : n + 1);
    for (std::int64_t c = 0; c < n; ++c) {
      if (c > 0) ascending = ascending && eigen[c - 1] <= eigen[c];
      for (std::int64_t i = 0; i < n; ++i) {
        double av = 0;
        for (std::int64_t k = 0; k < n; ++k) av += element(host, layout, b, i, k) * element(v, layout, b, k, c);
        residual = std::max(residual, std::abs(av - eigen[c] * element(v, layout, b, i, c)));
      }
    }
  }
  check(ascending, "syevd: eigenvalues ascending");
  check(residual < 1e-12, "syevd: A v = w v (" + std::to_string(residual) + ")");
}

void svd_checks(cudaStream_t stream) {
  const std::int64_t m = 5, n = 3, k = 3, ld = 6;
  for (const auto driver : {solver::SvdDriver::kGesvd, solver::SvdDriver::kGesvdj, solver::SvdDriver::kGesvda}) {
    const bool gesvd = driver == solver::SvdDriver::kGesvd;
    solver::Matrices a_layout = two_matrices(nullptr, m, n, ld);
    solver::Matrices u_layout = two_matrices(nullptr, m, k, m);
    // gesvd writes V^T (k x n), the others V (n x k).
    solver::Matrices v_layout = gesvd ? two_matrices(nullptr, k, n, k) : two_matrices(nullptr, n, k, n);
    const std::vector<double> host = values(storage(a_layout), 8);
    DeviceBuffer<double> a(host), s(std::vector<double>(2 * k + 1, 0));
    DeviceBuffer<double> u(std::vector<double>(storage(u_layout), 0)), v(std::vector<double>(storage(v_layout), 0));
    DeviceBuffer<int> info(std::vector<int>(3, -7));
    a_layout.data = a.get();
    u_layout.data = u.get();
    v_layout.data = v.get();
    Workspaces workspaces(stream);
    solver::execute(solver::SvdPlan{solver::ScalarType::kDouble, driver, true, false, a_layout,
                                    two_vectors(s.get(), k), u_layout, v_layout, two_vectors(info.get(), 1)},
                    stream, workspaces.allocator());
    const std::vector<double> uh = synced(u, stream), vh = synced(v, stream), sh = synced(s, stream);
    const std::vector<int> infos = synced(info, stream);
    const std::string name = gesvd ? "gesvd" : driver == solver::SvdDriver::kGesvdj ? "gesvdj" : "gesvda";
    check(infos[0] == 0 && infos[2] == 0, name + ": infos are 0");
    double worst = 0;
    for (std::size_t b = 0; b < 2; ++b) {
      const double* sigma = sh.data() + (b == 0 ? 0 : k + 1);
      for (std::int64_t i = 0; i < m; ++i) {
        for (std::int64_t j = 0; j < n; ++j) {
          double sum = 0;
          for (std::int64_t c = 0; c < k; ++c) {
            const double vjc = gesvd ? element(vh, v_layout, b, c, j) : element(vh, v_layout, b, j, c);
            sum += element(uh, u_layout, b, i, c) * sigma[c] * vjc;
          }
          worst = std::max(worst, std::abs(sum - element(host, a_layout, b, i, j)));
        }
      }
    }
    // gesvda approximates; the others are exact to rounding.
    check(worst < (driver == solver::SvdDriver::kGesvda ? 1e-6 : 1e-12),
          name + ": U S V^T = A (" + std::to_string(worst) + ")");
  }
}

void trsm_checks(cudaStream_t stream) {
  const std::int64_t n = 4, nrhs = 3, ld = 5;
  solver::Matrices a_layout = two_matrices(nullptr, n, n, ld);
  solver::Matrices b_layout = two_matrices(nullptr, n, nrhs, n);
  std::vector<double> a_host = values(storage(a_layout), 9);
  for (std::size_t b = 0; b < 2; ++b) {
    for (std::int64_t i = 0; i < n; ++i) a_host[a_layout.offsets[b] + i + i * ld] += 4;  // well conditioned
  }
  const std::vector<double> b_host = values(storage(b_layout), 10);
  DeviceBuffer<double> a(a_host), b(b_host);
  a_layout.data = a.get();
  b_layout.data = b.get();
  Workspaces workspaces(stream);
  solver::execute(solver::TriangularSolvePlan{solver::ScalarType::kDouble, true, solver::Triangle::kLower,
                                              solver::Operation::kNone, false, a_layout, b_layout},
                  stream, workspaces.allocator());
  const std::vector<double> x = synced(b, stream);
  double worst = 0;
  for (std::size_t m = 0; m < 2; ++m) {
    for (std::int64_t c = 0; c < nrhs; ++c) {
      for (std::int64_t i = 0; i < n; ++i) {
        double sum = 0;
        for (std::int64_t k = 0; k <= i; ++k) sum += element(a_host, a_layout, m, i, k) * element(x, b_layout, m, k, c);
        worst = std::max(worst, std::abs(sum - element(b_host, b_layout, m, i, c)));
      }
    }
  }
  check(worst < 1e-12, "trsm (left, lower): L X = B (" + std::to_string(worst) + ")");
}

void device_checks(cudaStream_t stream) {
  cholesky_checks(stream);
  lu_checks(stream);
  complex_lu_checks(stream);
  qr_checks(stream);
  eigh_checks(stream);
  svd_checks(stream);
  trsm_checks(stream);
}

void no_device_checks() {
  double scratch[4] = {4, 0, 0, 4};
  int info = 0;
  const solver::CholeskyPlan plan{solver::ScalarType::kDouble, solver::Triangle::kLower,
                                  solver::Matrices{scratch, 2, 2, 2, {0}}, solver::Vectors{&info, 1, {0}}};
  const std::string message = gpu_test::thrown<std::runtime_error>(
      [&] { solver::execute(plan, nullptr, [](std::int64_t) -> void* { return nullptr; }); },
      "a cuSOLVER call without a device");
  check(contains(message, "CUDA error") || contains(message, "cuSOLVER error"),
        "a cuSOLVER call without a device fails with a CUDA or cuSOLVER error: " + message);
}

}  // namespace

int main() {
  return gpu_test::run("cuSOLVER", "cuSOLVER not run; no-device behaviour checked", [] {}, no_device_checks,
                       device_checks);
}
