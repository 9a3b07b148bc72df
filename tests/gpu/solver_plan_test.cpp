// The dense solver plans' checks (third_device/torch_cuda/torch_cuda/csrc/aten/linalg/
// solver_plan.h), host only: square where the routine needs it, leading dimensions, one
// offset per matrix, U and V sized for the SVD driver, the operations a routine takes;
// each refusal says what is wrong.
#include <functional>
#include <stdexcept>
#include <string>

#include "tests/gpu/test_util.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/linalg/solver_plan.h"

namespace {

using gpu_test::check;
using gpu_test::contains;
namespace solver = torch_cuda::solver;

void expect_invalid(const std::function<void()>& call, const std::string& fragment, const std::string& what) {
  const std::string message = gpu_test::thrown<std::invalid_argument>(call, what);
  check(contains(message, fragment), what + ": message names the problem: " + message);
}

void host_checks() {
  double scratch = 0;
  solver::CholeskyPlan potrf{solver::ScalarType::kDouble, solver::Triangle::kLower,
                             solver::Matrices{&scratch, 4, 4, 4, {0, 16}}, solver::Vectors{&scratch, 1, {0, 1}}};
  solver::check(potrf);
  check(true, "a valid potrf plan passes its checks");
  auto bad = potrf;
  bad.a.ld = 3;
  expect_invalid([&] { solver::check(bad); }, "leading dimension", "potrf with ld < rows");
  bad = potrf;
  bad.a.cols = 3;
  expect_invalid([&] { solver::check(bad); }, "square", "potrf of a 4 x 3 matrix");
  bad = potrf;
  bad.info.offsets = {0};
  expect_invalid([&] { solver::check(bad); }, "offsets", "potrf with one info for two matrices");

  solver::LuSolvePlan getrs{solver::ScalarType::kFloat, solver::Operation::kNone,
                            solver::Matrices{&scratch, 3, 3, 3, {0}}, solver::Vectors{&scratch, 3, {0}},
                            solver::Matrices{&scratch, 4, 2, 4, {0}}};
  expect_invalid([&] { solver::check(getrs); }, "cannot solve", "getrs of 3 x 3 LU for 4 rows of B");

  solver::HouseholderProductPlan orgqr{solver::ScalarType::kFloat, solver::Matrices{&scratch, 3, 4, 3, {0}},
                                       solver::Vectors{&scratch, 2, {0}}};
  expect_invalid([&] { solver::check(orgqr); }, "m >= n >= k", "orgqr of a wide matrix");

  solver::SvdPlan svd{solver::ScalarType::kFloat, solver::SvdDriver::kGesvd, true, false,
                      solver::Matrices{&scratch, 3, 5, 3, {0}}, solver::Vectors{&scratch, 3, {0}},
                      solver::Matrices{&scratch, 3, 3, 3, {0}}, solver::Matrices{&scratch, 3, 5, 3, {0}},
                      solver::Vectors{&scratch, 1, {0}}};
  expect_invalid([&] { solver::check(svd); }, "m >= n", "gesvd of a wide matrix");
  svd.driver = solver::SvdDriver::kGesvdj;  // gesvdj takes it, with V (5 x 3)
  svd.v = solver::Matrices{&scratch, 5, 3, 5, {0}};
  solver::check(svd);
  check(true, "gesvdj of a wide matrix passes its checks");
  svd.u.cols = 5;
  expect_invalid([&] { solver::check(svd); }, "U is", "gesvdj with U sized for full_matrices without it");

  solver::HouseholderApplyPlan unmqr{solver::ScalarType::kComplexFloat, true, solver::Operation::kTranspose,
                                     solver::Matrices{&scratch, 4, 2, 4, {0}}, solver::Vectors{&scratch, 2, {0}},
                                     solver::Matrices{&scratch, 4, 3, 4, {0}}};
  expect_invalid([&] { solver::check(unmqr); }, "conjugate transpose", "unmqr with a plain transpose");
  unmqr.operation = solver::Operation::kConjugateTranspose;
  solver::check(unmqr);
  check(true, "unmqr with the conjugate transpose passes its checks");

  solver::TriangularSolvePlan trsm{solver::ScalarType::kDouble, false, solver::Triangle::kUpper,
                                   solver::Operation::kNone, false, solver::Matrices{&scratch, 3, 3, 3, {0}},
                                   solver::Matrices{&scratch, 2, 4, 2, {0}}};
  expect_invalid([&] { solver::check(trsm); }, "from the right", "trsm from the right with mismatched sizes");
  check(solver::is_complex(solver::ScalarType::kComplexFloat) && !solver::is_complex(solver::ScalarType::kDouble),
        "complex64 is complex, double is not");
}

}  // namespace

int main() {
  host_checks();
  return gpu_test::finish();
}
