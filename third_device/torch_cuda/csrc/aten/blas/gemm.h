// Row-major gemm, strided-batched gemm and gemv over cuBLAS, torch-free: what the CUDA
// key's mm/addmm/bmm/baddbmm/mv/addmv launch once they have chosen a layout.
//
// Callers think row-major (torch's contiguous layout): a matrix is (rows, cols) with a
// leading dimension ld >= cols, element (r, c) at r * ld + c. cuBLAS is column-major,
// where that same memory is the transpose, so C = op(A) op(B) is computed as
// C^T = op(B)^T op(A)^T: A and B swap places, m and n swap, the transposes stay.
//
// Precision follows torch.backends.cuda.matmul (MatmulPrecision; math_config):
//   float     allow_tf32 -> CUBLAS_COMPUTE_32F_FAST_TF32 and CUBLAS_TF32_TENSOR_OP_MATH,
//             otherwise CUBLAS_COMPUTE_32F with CUBLAS_DEFAULT_MATH (full fp32)
//   double    CUBLAS_COMPUTE_64F
//   half/bf16 fp32 accumulation (CUBLAS_COMPUTE_32F, float alpha/beta); without
//             allow_{fp16,bf16}_reduced_precision_reduction the math mode adds
//             CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION
// The math mode is set on every call, so nothing leaks between calls on one handle.
//
// Sizes and leading dimensions must fit cuBLAS's 32-bit API (std::invalid_argument
// otherwise); invalid arguments throw std::invalid_argument before any CUDA call.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <library_types.h>

#include <cstdint>

namespace torch_cuda::blas {

enum class DType { kFloat32, kFloat64, kFloat16, kBFloat16 };

// torch.backends.cuda.matmul's knobs, with torch's defaults.
struct MatmulPrecision {
  bool allow_tf32 = false;
  bool allow_fp16_reduced_precision_reduction = true;
  bool allow_bf16_reduced_precision_reduction = true;
};

// The process-wide settings (what torch.backends.cuda.matmul.* read and write).
MatmulPrecision matmul_precision();
void set_matmul_precision(const MatmulPrecision& precision);

struct MathConfig {
  cudaDataType_t data_type;        // A, B and C
  cublasComputeType_t compute_type;
  cudaDataType_t scale_type;       // alpha and beta
  cublasMath_t math_mode;
};

// How a gemm of `dtype` runs under `precision`: pure, so it is tested without a GPU.
MathConfig math_config(DType dtype, const MatmulPrecision& precision);

// C (m x n) = alpha * op(A) (m x k) * op(B) (k x n) + beta * C, row-major. A as stored is
// (m x k), or (k x m) when trans_a; likewise B. With beta == 0, C is not read.
struct Gemm {
  DType dtype = DType::kFloat32;
  bool trans_a = false;
  bool trans_b = false;
  std::int64_t m = 0, n = 0, k = 0;
  const void* a = nullptr;
  std::int64_t lda = 0;
  const void* b = nullptr;
  std::int64_t ldb = 0;
  void* c = nullptr;
  std::int64_t ldc = 0;
  double alpha = 1.0;
  double beta = 0.0;
};

// Checks a Gemm (and batch strides, in elements) without touching the GPU.
void check_gemm(const Gemm& args);

void gemm(const Gemm& args, cudaStream_t stream);

// `batch` gemms; matrix i of each operand starts stride_x elements after matrix i - 1
// (0 broadcasts one matrix over the batch, as bmm with an expanded operand).
void gemm_strided_batched(const Gemm& args, std::int64_t batch, std::int64_t stride_a, std::int64_t stride_b,
                          std::int64_t stride_c, cudaStream_t stream);

// y = alpha * op(A) x + beta * y; A as stored is (m x n) row-major, so op(A) is (m x n)
// (x has n elements, y m) or, with trans, (n x m). incx, incy > 0 (elements).
struct Gemv {
  DType dtype = DType::kFloat32;
  bool trans = false;
  std::int64_t m = 0, n = 0;
  const void* a = nullptr;
  std::int64_t lda = 0;
  const void* x = nullptr;
  std::int64_t incx = 1;
  void* y = nullptr;
  std::int64_t incy = 1;
  double alpha = 1.0;
  double beta = 0.0;
};

void check_gemv(const Gemv& args);

// float/double: cublas{S,D}gemv; half/bfloat16: a (rows x 1) gemm through cublasGemmEx,
// as ATen does (cuBLAS has no half gemv).
void gemv(const Gemv& args, cudaStream_t stream);

}  // namespace torch_cuda::blas
