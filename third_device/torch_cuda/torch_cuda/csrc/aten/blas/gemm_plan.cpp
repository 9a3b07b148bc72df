#include "third_device/torch_cuda/torch_cuda/csrc/aten/blas/gemm_plan.h"

#include <atomic>
#include <climits>
#include <stdexcept>
#include <string>

namespace torch_cuda::blas {
namespace {

std::atomic<bool> g_allow_tf32{false};
std::atomic<bool> g_allow_fp16_reduction{true};
std::atomic<bool> g_allow_bf16_reduction{true};

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument(what);
}

int to_int(std::int64_t value, const char* name) {
  require(value >= 0 && value <= INT_MAX, std::string(name) + " = " + std::to_string(value) +
                                              " is out of cuBLAS's 32-bit range [0, INT_MAX]");
  return static_cast<int>(value);
}

// Row-major (rows x cols) stored with leading dimension ld.
void check_matrix(const char* name, std::int64_t rows, std::int64_t cols, std::int64_t ld) {
  const std::int64_t min_ld = cols > 1 ? cols : 1;
  require(ld >= min_ld, std::string("ld") + name + " = " + std::to_string(ld) + " is less than max(1, " +
                            std::to_string(cols) + "), the columns of " + name + " as stored (" + std::to_string(rows) +
                            " x " + std::to_string(cols) + ", row-major)");
}

}  // namespace

bool is_complex(DType dtype) { return dtype == DType::kComplex64 || dtype == DType::kComplex128; }

MatmulPrecision matmul_precision() {
  MatmulPrecision precision;
  precision.allow_tf32 = g_allow_tf32.load();
  precision.allow_fp16_reduced_precision_reduction = g_allow_fp16_reduction.load();
  precision.allow_bf16_reduced_precision_reduction = g_allow_bf16_reduction.load();
  return precision;
}

void set_matmul_precision(const MatmulPrecision& precision) {
  g_allow_tf32.store(precision.allow_tf32);
  g_allow_fp16_reduction.store(precision.allow_fp16_reduced_precision_reduction);
  g_allow_bf16_reduction.store(precision.allow_bf16_reduced_precision_reduction);
}

void check_gemm(const Gemm& g) {
  to_int(g.m, "m");
  to_int(g.n, "n");
  to_int(g.k, "k");
  to_int(g.lda, "lda");
  to_int(g.ldb, "ldb");
  to_int(g.ldc, "ldc");
  check_matrix("a", g.trans_a ? g.k : g.m, g.trans_a ? g.m : g.k, g.lda);
  check_matrix("b", g.trans_b ? g.n : g.k, g.trans_b ? g.k : g.n, g.ldb);
  check_matrix("c", g.m, g.n, g.ldc);
  if (g.m > 0 && g.n > 0) {
    require(g.c != nullptr, "gemm: c is null");
    require(g.k == 0 || (g.a != nullptr && g.b != nullptr), "gemm: a or b is null");
  }
}

void check_gemv(const Gemv& g) {
  to_int(g.m, "m");
  to_int(g.n, "n");
  to_int(g.lda, "lda");
  to_int(g.incx, "incx");
  to_int(g.incy, "incy");
  require(g.incx > 0 && g.incy > 0, "gemv: incx and incy must be positive");
  check_matrix("a", g.m, g.n, g.lda);
  const std::int64_t rows_out = g.trans ? g.n : g.m;
  const std::int64_t len_x = g.trans ? g.m : g.n;
  if (rows_out > 0) {
    require(g.y != nullptr, "gemv: y is null");
    require(len_x == 0 || (g.a != nullptr && g.x != nullptr), "gemv: a or x is null");
  }
}

GemmPlan plan_gemm(const Gemm& g, const MatmulPrecision& precision, std::int64_t batch, std::int64_t stride_a,
                   std::int64_t stride_b, std::int64_t stride_c) {
  check_gemm(g);
  to_int(batch, "batch");
  require(stride_a >= 0 && stride_b >= 0 && stride_c >= 0, "gemm_strided_batched: negative stride");
  require(batch <= 1 || stride_c > 0, "gemm_strided_batched: stride_c = 0 would write every batch to one matrix");
  GemmPlan plan;
  plan.dtype = g.dtype;
  plan.precision = precision;
  // Column-major C^T (n x m) = op(B)^T (n x k) * op(A)^T (k x m).
  plan.trans_a = g.trans_b;
  plan.trans_b = g.trans_a;
  plan.m = static_cast<int>(g.n);
  plan.n = static_cast<int>(g.m);
  plan.k = static_cast<int>(g.k);
  plan.a = g.b;
  plan.lda = static_cast<int>(g.ldb);
  plan.stride_a = stride_b;
  plan.b = g.a;
  plan.ldb = static_cast<int>(g.lda);
  plan.stride_b = stride_a;
  plan.c = g.c;
  plan.ldc = static_cast<int>(g.ldc);
  plan.stride_c = stride_c;
  plan.batch = static_cast<int>(batch);
  plan.alpha = g.alpha;
  plan.beta = g.beta;
  plan.alpha_imag = g.alpha_imag;
  plan.beta_imag = g.beta_imag;
  return plan;
}

LtMatmulPlan plan_gemm_and_bias(const Gemm& g, const MatmulPrecision& precision, const void* bias,
                                Epilogue epilogue) {
  require(g.beta == 0.0, "gemm_and_bias: beta must be 0 (the bias takes C's place)");
  require(!is_complex(g.dtype), "gemm_and_bias: cuBLASLt's bias epilogues are for real types");
  require(bias != nullptr || g.m == 0 || g.n == 0, "gemm_and_bias: bias is null");
  LtMatmulPlan plan;
  // Transposed as plan_gemm: C^T's rows are C's columns, so the bias (one per column of C)
  // is one per row of D, as cuBLASLt's bias epilogue broadcasts it.
  plan.gemm = plan_gemm(g, precision);
  plan.epilogue = epilogue;
  plan.bias = bias;
  return plan;
}

bool gemv_is_gemm(const Gemv& g) {
  const std::int64_t len_x = g.trans ? g.m : g.n;
  return g.dtype == DType::kFloat16 || g.dtype == DType::kBFloat16 || is_complex(g.dtype) || len_x == 0;
}

GemmPlan plan_gemv_as_gemm(const Gemv& g, const MatmulPrecision& precision) {
  check_gemv(g);
  // y (rows_out x 1, ld incy) = op(A) (rows_out x len_x) * x (len_x x 1, ld incx).
  Gemm as_gemm;
  as_gemm.dtype = g.dtype;
  as_gemm.trans_a = g.trans;
  as_gemm.m = g.trans ? g.n : g.m;
  as_gemm.n = 1;
  as_gemm.k = g.trans ? g.m : g.n;
  as_gemm.a = g.a;
  as_gemm.lda = g.lda;
  as_gemm.b = g.x;
  as_gemm.ldb = g.incx;
  as_gemm.c = g.y;
  as_gemm.ldc = g.incy;
  as_gemm.alpha = g.alpha;
  as_gemm.beta = g.beta;
  as_gemm.alpha_imag = g.alpha_imag;
  as_gemm.beta_imag = g.beta_imag;
  return plan_gemm(as_gemm, precision);
}

GemvPlan plan_gemv(const Gemv& g) {
  check_gemv(g);
  require(!gemv_is_gemm(g), "plan_gemv: half, bfloat16 and empty products are gemms (plan_gemv_as_gemm)");
  GemvPlan plan;
  plan.dtype = g.dtype;
  // Column-major, stored A is A^T (n x m, ld lda): op(A) x is (A^T)^T x, so the
  // transposes flip.
  plan.trans = !g.trans;
  plan.rows = static_cast<int>(g.n);
  plan.cols = static_cast<int>(g.m);
  plan.a = g.a;
  plan.lda = static_cast<int>(g.lda);
  plan.x = g.x;
  plan.incx = static_cast<int>(g.incx);
  plan.y = g.y;
  plan.incy = static_cast<int>(g.incy);
  plan.alpha = g.alpha;
  plan.beta = g.beta;
  return plan;
}

}  // namespace torch_cuda::blas
