#include "third_device/torch_cuda/torch_cuda/csrc/aten/linalg/solver_plan.h"

#include <algorithm>
#include <cstddef>
#include <sstream>
#include <stdexcept>
#include <string>

namespace torch_cuda::solver {
namespace {

[[noreturn]] void fail(const char* plan, const std::string& what) {
  throw std::invalid_argument(std::string("cuSOLVER ") + plan + " plan: " + what);
}

std::string shape(const Matrices& m) {
  std::ostringstream text;
  text << m.rows << " x " << m.cols << " (ld " << m.ld << ")";
  return text.str();
}

void check_matrices(const char* plan, const char* name, const Matrices& m, std::size_t batch) {
  if (m.rows < 0 || m.cols < 0) fail(plan, std::string(name) + " has a negative size " + shape(m));
  if (m.ld < std::max<std::int64_t>(1, m.rows)) {
    fail(plan, std::string(name) + " " + shape(m) + ": the leading dimension must be at least max(1, rows)");
  }
  if (m.offsets.size() != batch) {
    fail(plan, std::string(name) + " has " + std::to_string(m.offsets.size()) + " offsets for a batch of " +
                   std::to_string(batch));
  }
  if (batch > 0 && m.rows * m.cols > 0 && m.data == nullptr) fail(plan, std::string(name) + " has no memory");
}

void check_vectors(const char* plan, const char* name, const Vectors& v, std::int64_t length, std::size_t batch) {
  if (v.length != length) {
    fail(plan, std::string(name) + " holds " + std::to_string(v.length) + " elements a matrix, not " +
                   std::to_string(length));
  }
  if (v.offsets.size() != batch) {
    fail(plan, std::string(name) + " has " + std::to_string(v.offsets.size()) + " offsets for a batch of " +
                   std::to_string(batch));
  }
  if (batch > 0 && length > 0 && v.data == nullptr) fail(plan, std::string(name) + " has no memory");
}

void check_square(const char* plan, const Matrices& a) {
  if (a.rows != a.cols) fail(plan, "the matrices must be square, not " + shape(a));
}

}  // namespace

bool is_complex(ScalarType type) { return type == ScalarType::kComplexFloat || type == ScalarType::kComplexDouble; }

void check(const CholeskyPlan& plan) {
  const std::size_t batch = plan.a.offsets.size();
  check_matrices("potrf", "A", plan.a, batch);
  check_square("potrf", plan.a);
  check_vectors("potrf", "info", plan.info, 1, batch);
}

void check(const CholeskySolvePlan& plan) {
  const std::size_t batch = plan.b.offsets.size();
  check_matrices("potrs", "B", plan.b, batch);
  check_matrices("potrs", "the factor", plan.factor, batch);
  check_square("potrs", plan.factor);
  if (plan.factor.rows != plan.b.rows) {
    fail("potrs", "the factor " + shape(plan.factor) + " cannot solve for B " + shape(plan.b));
  }
}

void check(const LuFactorPlan& plan) {
  const std::size_t batch = plan.a.offsets.size();
  check_matrices("getrf", "A", plan.a, batch);
  check_vectors("getrf", "pivots", plan.pivots, std::min(plan.a.rows, plan.a.cols), batch);
  check_vectors("getrf", "info", plan.info, 1, batch);
}

void check(const LuSolvePlan& plan) {
  const std::size_t batch = plan.b.offsets.size();
  check_matrices("getrs", "B", plan.b, batch);
  check_matrices("getrs", "LU", plan.lu, batch);
  check_square("getrs", plan.lu);
  if (plan.lu.rows != plan.b.rows) fail("getrs", "LU " + shape(plan.lu) + " cannot solve for B " + shape(plan.b));
  check_vectors("getrs", "pivots", plan.pivots, plan.lu.rows, batch);
}

void check(const QrPlan& plan) {
  const std::size_t batch = plan.a.offsets.size();
  check_matrices("geqrf", "A", plan.a, batch);
  check_vectors("geqrf", "tau", plan.tau, std::min(plan.a.rows, plan.a.cols), batch);
}

void check(const HouseholderProductPlan& plan) {
  const std::size_t batch = plan.a.offsets.size();
  check_matrices("orgqr", "A", plan.a, batch);
  if (plan.a.rows < plan.a.cols || plan.a.cols < plan.tau.length || plan.tau.length < 0) {
    fail("orgqr", "needs m >= n >= k, not A " + shape(plan.a) + " with k = " + std::to_string(plan.tau.length));
  }
  check_vectors("orgqr", "tau", plan.tau, plan.tau.length, batch);
}

void check(const HouseholderApplyPlan& plan) {
  const std::size_t batch = plan.c.offsets.size();
  check_matrices("ormqr", "C", plan.c, batch);
  check_matrices("ormqr", "A", plan.a, batch);
  const std::int64_t k = plan.tau.length;
  if (plan.a.rows != (plan.left ? plan.c.rows : plan.c.cols) || k > plan.a.cols || k > plan.a.rows || k < 0) {
    fail("ormqr", "A " + shape(plan.a) + " with k = " + std::to_string(k) + " cannot apply Q " +
                      (plan.left ? "from the left" : "from the right") + " to C " + shape(plan.c));
  }
  if (is_complex(plan.type) && plan.operation == Operation::kTranspose) {
    fail("ormqr", "a complex Q applies as itself or its conjugate transpose (unmqr), not its transpose");
  }
  check_vectors("ormqr", "tau", plan.tau, k, batch);
}

void check(const EighPlan& plan) {
  const std::size_t batch = plan.a.offsets.size();
  check_matrices("syevd", "A", plan.a, batch);
  check_square("syevd", plan.a);
  check_vectors("syevd", "eigenvalues", plan.values, plan.a.rows, batch);
  check_vectors("syevd", "info", plan.info, 1, batch);
}

void check(const SvdPlan& plan) {
  const char* name = plan.driver == SvdDriver::kGesvd    ? "gesvd"
                     : plan.driver == SvdDriver::kGesvdj ? "gesvdj"
                                                         : "gesvda";
  const std::size_t batch = plan.a.offsets.size();
  const std::int64_t m = plan.a.rows, n = plan.a.cols, k = std::min(m, n);
  check_matrices(name, "A", plan.a, batch);
  if (plan.driver != SvdDriver::kGesvdj && m < n) fail(name, "needs m >= n, not A " + shape(plan.a));
  check_vectors(name, "S", plan.s, k, batch);
  check_vectors(name, "info", plan.info, 1, batch);
  if (!plan.compute_uv) return;
  const bool full = plan.full_matrices && plan.driver != SvdDriver::kGesvda;
  check_matrices(name, "U", plan.u, batch);
  if (plan.u.rows != m || plan.u.cols != (full ? m : k)) {
    fail(name, "U is " + shape(plan.u) + " for A " + shape(plan.a));
  }
  check_matrices(name, "V", plan.v, batch);
  const std::int64_t v_rows = plan.driver == SvdDriver::kGesvd ? (full ? n : k) : n;
  const std::int64_t v_cols = plan.driver == SvdDriver::kGesvd ? n : (full ? n : k);
  if (plan.v.rows != v_rows || plan.v.cols != v_cols) {
    fail(name, std::string(plan.driver == SvdDriver::kGesvd ? "VT" : "V") + " is " + shape(plan.v) + " for A " +
                   shape(plan.a));
  }
}

void check(const TriangularSolvePlan& plan) {
  const std::size_t batch = plan.b.offsets.size();
  check_matrices("trsm", "B", plan.b, batch);
  check_matrices("trsm", "A", plan.a, batch);
  const bool fits = plan.left ? plan.a.rows >= plan.a.cols && plan.b.rows >= plan.a.cols
                              : plan.a.rows == plan.a.cols && plan.a.cols == plan.b.cols;
  if (!fits) {
    fail("trsm", std::string("A ") + shape(plan.a) + " cannot solve from the " + (plan.left ? "left" : "right") +
                     " for B " + shape(plan.b));
  }
}

}  // namespace torch_cuda::solver
