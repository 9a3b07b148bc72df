// The cuBLAS executor of gemm_plan.h's plans.
#include "third_device/torch_cuda/torch_cuda/csrc/aten/blas/gemm.h"

#include <stdexcept>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/blas/cublas_check.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/blas/cublas_handle.h"

namespace torch_cuda::blas {
namespace {

cublasOperation_t op(bool trans) { return trans ? CUBLAS_OP_T : CUBLAS_OP_N; }

// alpha and beta in the scale type (host pointer mode): real, or complex as (real,
// imaginary) pairs, as cuComplex and cuDoubleComplex lay them out.
struct Scalars {
  float f[4];
  double d[4];
  bool wide(const MathConfig& config) const {
    return config.scale_type == CUDA_R_64F || config.scale_type == CUDA_C_64F;
  }
  const void* alpha(const MathConfig& config) const { return wide(config) ? &d[0] : static_cast<const void*>(&f[0]); }
  const void* beta(const MathConfig& config) const { return wide(config) ? &d[2] : static_cast<const void*>(&f[2]); }
};

Scalars scalars(const GemmPlan& p) {
  return {{static_cast<float>(p.alpha), static_cast<float>(p.alpha_imag), static_cast<float>(p.beta),
           static_cast<float>(p.beta_imag)},
          {p.alpha, p.alpha_imag, p.beta, p.beta_imag}};
}

cublasHandle_t prepared_handle(const MathConfig& config, cudaStream_t stream) {
  cublasHandle_t handle = current_handle(stream);
  TORCH_CUDABLAS_CHECK(cublasSetMathMode(handle, config.math_mode));
  return handle;
}

}  // namespace

MathConfig math_config(DType dtype, const MatmulPrecision& precision) {
  switch (dtype) {
    case DType::kFloat32:
      if (precision.allow_tf32) {
        return {CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F, CUBLAS_TF32_TENSOR_OP_MATH};
      }
      return {CUDA_R_32F, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUBLAS_DEFAULT_MATH};
    case DType::kFloat64:
      return {CUDA_R_64F, CUBLAS_COMPUTE_64F, CUDA_R_64F, CUBLAS_DEFAULT_MATH};
    case DType::kComplex64:  // as float: allow_tf32 applies (stock's Cgemm on its handle's math mode)
      if (precision.allow_tf32) {
        return {CUDA_C_32F, CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_C_32F, CUBLAS_TF32_TENSOR_OP_MATH};
      }
      return {CUDA_C_32F, CUBLAS_COMPUTE_32F, CUDA_C_32F, CUBLAS_DEFAULT_MATH};
    case DType::kComplex128:
      return {CUDA_C_64F, CUBLAS_COMPUTE_64F, CUDA_C_64F, CUBLAS_DEFAULT_MATH};
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

void execute(const GemmPlan& p, torch_core::StreamHandle stream_handle) {
  if (p.m == 0 || p.n == 0 || p.batch == 0) return;
  const auto stream = static_cast<cudaStream_t>(stream_handle);
  const MathConfig config = math_config(p.dtype, p.precision);
  const Scalars s = scalars(p);
  cublasHandle_t handle = prepared_handle(config, stream);
  if (p.batch == 1) {
    TORCH_CUDABLAS_CHECK(cublasGemmEx(handle, op(p.trans_a), op(p.trans_b), p.m, p.n, p.k, s.alpha(config), p.a,
                                      config.data_type, p.lda, p.b, config.data_type, p.ldb, s.beta(config), p.c,
                                      config.data_type, p.ldc, config.compute_type, CUBLAS_GEMM_DEFAULT));
    return;
  }
  TORCH_CUDABLAS_CHECK(cublasGemmStridedBatchedEx(
      handle, op(p.trans_a), op(p.trans_b), p.m, p.n, p.k, s.alpha(config), p.a, config.data_type, p.lda, p.stride_a,
      p.b, config.data_type, p.ldb, p.stride_b, s.beta(config), p.c, config.data_type, p.ldc, p.stride_c, p.batch,
      config.compute_type, CUBLAS_GEMM_DEFAULT));
}

void execute(const GemvPlan& p, torch_core::StreamHandle stream_handle) {
  if ((p.trans ? p.cols : p.rows) == 0) return;  // y is empty
  const auto stream = static_cast<cudaStream_t>(stream_handle);
  const MathConfig config = math_config(p.dtype, MatmulPrecision{});
  cublasHandle_t handle = prepared_handle(config, stream);
  const cublasOperation_t trans = op(p.trans);
  if (p.dtype == DType::kFloat32) {
    const float alpha = static_cast<float>(p.alpha), beta = static_cast<float>(p.beta);
    TORCH_CUDABLAS_CHECK(cublasSgemv(handle, trans, p.rows, p.cols, &alpha, static_cast<const float*>(p.a), p.lda,
                                     static_cast<const float*>(p.x), p.incx, &beta, static_cast<float*>(p.y), p.incy));
  } else {
    TORCH_CUDABLAS_CHECK(cublasDgemv(handle, trans, p.rows, p.cols, &p.alpha, static_cast<const double*>(p.a), p.lda,
                                     static_cast<const double*>(p.x), p.incx, &p.beta, static_cast<double*>(p.y),
                                     p.incy));
  }
}

void gemm(const Gemm& g, cudaStream_t stream) { execute(plan_gemm(g, matmul_precision()), stream); }

void gemm_strided_batched(const Gemm& g, std::int64_t batch, std::int64_t stride_a, std::int64_t stride_b,
                          std::int64_t stride_c, cudaStream_t stream) {
  execute(plan_gemm(g, matmul_precision(), batch, stride_a, stride_b, stride_c), stream);
}

void gemv(const Gemv& g, cudaStream_t stream) {
  if (gemv_is_gemm(g)) {
    execute(plan_gemv_as_gemm(g, matmul_precision()), stream);
  } else {
    execute(plan_gemv(g), stream);
  }
}

}  // namespace torch_cuda::blas
