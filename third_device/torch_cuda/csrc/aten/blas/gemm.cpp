#include "third_device/torch_cuda/csrc/aten/blas/gemm.h"

#include <atomic>
#include <climits>
#include <stdexcept>
#include <string>

#include "third_device/torch_cuda/csrc/aten/blas/cublas_check.h"
#include "third_device/torch_cuda/csrc/aten/blas/cublas_handle.h"

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

cublasOperation_t op(bool trans) { return trans ? CUBLAS_OP_T : CUBLAS_OP_N; }

// alpha and beta in the scale type (host pointer mode).
struct Scalars {
  float f[2];
  double d[2];
  const void* alpha(const MathConfig& config) const { return config.scale_type == CUDA_R_64F ? &d[0] : static_cast<const void*>(&f[0]); }
  const void* beta(const MathConfig& config) const { return config.scale_type == CUDA_R_64F ? &d[1] : static_cast<const void*>(&f[1]); }
};

Scalars scalars(double alpha, double beta) {
  return {{static_cast<float>(alpha), static_cast<float>(beta)}, {alpha, beta}};
}

cublasHandle_t prepared_handle(const MathConfig& config, cudaStream_t stream) {
  cublasHandle_t handle = current_handle(stream);
  TORCH_CUDABLAS_CHECK(cublasSetMathMode(handle, config.math_mode));
  return handle;
}

}  // namespace

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

MathConfig math_config(DType dtype, const MatmulPrecision& precision) {
  switch (dtype) {
    case DType::kFloat32:
      if (precision.allow_tf32) {
        return {CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F, CUBLAS_TF32_TENSOR_OP_MATH};
      }
      return {CUDA_R_32F, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUBLAS_DEFAULT_MATH};
    case DType::kFloat64:
      return {CUDA_R_64F, CUBLAS_COMPUTE_64F, CUDA_R_64F, CUBLAS_DEFAULT_MATH};
    case DType::kFloat16:
      return {CUDA_R_16F, CUBLAS_COMPUTE_32F, CUDA_R_32F,
              precision.allow_fp16_reduced_precision_reduction
                  ? CUBLAS_DEFAULT_MATH
                  : static_cast<cublasMath_t>(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)};
    case DType::kBFloat16:
      return {CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDA_R_32F,
              precision.allow_bf16_reduced_precision_reduction
                  ? CUBLAS_DEFAULT_MATH
                  : static_cast<cublasMath_t>(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)};
  }
  throw std::invalid_argument("math_config: unknown dtype");
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

void gemm(const Gemm& g, cudaStream_t stream) {
  check_gemm(g);
  if (g.m == 0 || g.n == 0) return;
  const MathConfig config = math_config(g.dtype, matmul_precision());
  const Scalars s = scalars(g.alpha, g.beta);
  cublasHandle_t handle = prepared_handle(config, stream);
  // Column-major C^T (n x m) = op(B)^T (n x k) * op(A)^T (k x m).
  TORCH_CUDABLAS_CHECK(cublasGemmEx(handle, op(g.trans_b), op(g.trans_a), static_cast<int>(g.n),
                                    static_cast<int>(g.m), static_cast<int>(g.k), s.alpha(config), g.b,
                                    config.data_type, static_cast<int>(g.ldb), g.a, config.data_type,
                                    static_cast<int>(g.lda), s.beta(config), g.c, config.data_type,
                                    static_cast<int>(g.ldc), config.compute_type, CUBLAS_GEMM_DEFAULT));
}

void gemm_strided_batched(const Gemm& g, std::int64_t batch, std::int64_t stride_a, std::int64_t stride_b,
                          std::int64_t stride_c, cudaStream_t stream) {
  check_gemm(g);
  to_int(batch, "batch");
  require(stride_a >= 0 && stride_b >= 0 && stride_c >= 0, "gemm_strided_batched: negative stride");
  require(batch <= 1 || stride_c > 0, "gemm_strided_batched: stride_c = 0 would write every batch to one matrix");
  if (g.m == 0 || g.n == 0 || batch == 0) return;
  const MathConfig config = math_config(g.dtype, matmul_precision());
  const Scalars s = scalars(g.alpha, g.beta);
  cublasHandle_t handle = prepared_handle(config, stream);
  TORCH_CUDABLAS_CHECK(cublasGemmStridedBatchedEx(
      handle, op(g.trans_b), op(g.trans_a), static_cast<int>(g.n), static_cast<int>(g.m), static_cast<int>(g.k),
      s.alpha(config), g.b, config.data_type, static_cast<int>(g.ldb), stride_b, g.a, config.data_type,
      static_cast<int>(g.lda), stride_a, s.beta(config), g.c, config.data_type, static_cast<int>(g.ldc), stride_c,
      static_cast<int>(batch), config.compute_type, CUBLAS_GEMM_DEFAULT));
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

void gemv(const Gemv& g, cudaStream_t stream) {
  check_gemv(g);
  const std::int64_t rows_out = g.trans ? g.n : g.m;
  const std::int64_t len_x = g.trans ? g.m : g.n;
  if (rows_out == 0) return;
  if (g.dtype == DType::kFloat16 || g.dtype == DType::kBFloat16 || len_x == 0) {
    // y (rows_out x 1, ld incy) = op(A) (rows_out x len_x) * x (len_x x 1, ld incx).
    // (len_x == 0 also goes here: a gemm with k == 0 scales y by beta.)
    Gemm as_gemm;
    as_gemm.dtype = g.dtype;
    as_gemm.trans_a = g.trans;
    as_gemm.m = rows_out;
    as_gemm.n = 1;
    as_gemm.k = len_x;
    as_gemm.a = g.a;
    as_gemm.lda = g.lda;
    as_gemm.b = g.x;
    as_gemm.ldb = g.incx;
    as_gemm.c = g.y;
    as_gemm.ldc = g.incy;
    as_gemm.alpha = g.alpha;
    as_gemm.beta = g.beta;
    gemm(as_gemm, stream);
    return;
  }
  const MathConfig config = math_config(g.dtype, matmul_precision());
  cublasHandle_t handle = prepared_handle(config, stream);
  // Column-major, stored A is A^T (n x m, ld lda): op(A) x is (A^T)^T x, so the
  // transposes flip.
  const cublasOperation_t trans = g.trans ? CUBLAS_OP_N : CUBLAS_OP_T;
  const int rows = static_cast<int>(g.n), cols = static_cast<int>(g.m);
  if (g.dtype == DType::kFloat32) {
    const float alpha = static_cast<float>(g.alpha), beta = static_cast<float>(g.beta);
    TORCH_CUDABLAS_CHECK(cublasSgemv(handle, trans, rows, cols, &alpha, static_cast<const float*>(g.a),
                                     static_cast<int>(g.lda), static_cast<const float*>(g.x), static_cast<int>(g.incx),
                                     &beta, static_cast<float*>(g.y), static_cast<int>(g.incy)));
  } else {
    TORCH_CUDABLAS_CHECK(cublasDgemv(handle, trans, rows, cols, &g.alpha, static_cast<const double*>(g.a),
                                     static_cast<int>(g.lda), static_cast<const double*>(g.x), static_cast<int>(g.incx),
                                     &g.beta, static_cast<double*>(g.y), static_cast<int>(g.incy)));
  }
}

}  // namespace torch_cuda::blas
