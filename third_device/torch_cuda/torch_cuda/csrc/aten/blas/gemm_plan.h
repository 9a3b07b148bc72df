// The plans of torch_cuda's matrix products: everything decided before cuBLAS is called,
// in plain host C++ (no CUDA header), so that both variants run the same plan. The CUDA
// key's mm/addmm/_addmm_activation/bmm/baddbmm/mv/addmv (blas_ops.cpp) describe a product
// row-major (Gemm, Gemv: torch's layout) and plan it; an executor runs the plan:
//   real       blas/gemm.cpp: cublasGemmEx / cublasGemmStridedBatchedEx / cublas{S,D}gemv;
//              blas/lt_matmul.cpp: cublasLtMatmul with a bias (and ReLU or GELU) epilogue
//   simulated  simulated/csrc/host_blas.cpp: the same column-major calls on the host,
//              with cuBLAS's documented semantics (op(), leading dimensions, batch strides,
//              beta == 0 not reading C, the compute type's accumulation and TF32 rounding)
// so a wrong transpose or leading dimension in a plan fails in CI.
//
// Row-major to cuBLAS: a row-major (rows x cols) matrix with leading dimension ld is, in
// the same memory, the column-major (cols x rows) transpose. So C = op(A) op(B) is
// computed as C^T = op(B)^T op(A)^T: A and B swap places, m and n swap, the transposes
// stay.
//
// Sizes and leading dimensions must fit cuBLAS's 32-bit API: planning throws
// std::invalid_argument otherwise, before any executor runs.
#pragma once

#include <cstdint>

#include "torch_core/csrc/runtime/device_runtime.h"

namespace torch_cuda::blas {

enum class DType { kFloat32, kFloat64, kFloat16, kBFloat16, kComplex64, kComplex128 };

bool is_complex(DType dtype);

// torch.backends.cuda.matmul's knobs, with torch's defaults.
struct MatmulPrecision {
  bool allow_tf32 = false;
  bool allow_fp16_reduced_precision_reduction = true;
  bool allow_bf16_reduced_precision_reduction = true;
};

// The process-wide settings (what torch.backends.cuda.matmul.* read and write).
MatmulPrecision matmul_precision();
void set_matmul_precision(const MatmulPrecision& precision);

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
  // The imaginary parts of alpha and beta (complex dtypes only).
  double alpha_imag = 0.0;
  double beta_imag = 0.0;
};

// Checks a Gemm without touching the GPU.
void check_gemm(const Gemm& args);

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
  double alpha_imag = 0.0;  // complex dtypes only (their gemv is a gemm)
  double beta_imag = 0.0;
};

void check_gemv(const Gemv& args);

// One cuBLAS gemm call, column-major, in cublasGemmStridedBatchedEx's terms (batch 1:
// cublasGemmEx): C = alpha * op(A) op(B) + beta * C for each of `batch` matrices, matrix i
// of each operand stride_x elements after matrix i - 1 (0 broadcasts one matrix).
struct GemmPlan {
  DType dtype = DType::kFloat32;
  MatmulPrecision precision;
  bool trans_a = false, trans_b = false;
  int m = 0, n = 0, k = 0;
  const void* a = nullptr;
  int lda = 1;
  std::int64_t stride_a = 0;
  const void* b = nullptr;
  int ldb = 1;
  std::int64_t stride_b = 0;
  void* c = nullptr;
  int ldc = 1;
  std::int64_t stride_c = 0;
  int batch = 1;
  double alpha = 1.0, beta = 0.0;
  double alpha_imag = 0.0, beta_imag = 0.0;  // complex dtypes only
};

// One cublas{S,D}gemv call, column-major: y = alpha * op(A) x + beta * y with A (rows x
// cols, leading dimension lda). float and double only (half and bfloat16 gemv are gemms).
struct GemvPlan {
  DType dtype = DType::kFloat32;
  bool trans = false;
  int rows = 0, cols = 0;
  const void* a = nullptr;
  int lda = 1;
  const void* x = nullptr;
  int incx = 1;
  void* y = nullptr;
  int incy = 1;
  double alpha = 1.0, beta = 0.0;
};

// The plans of a row-major request. Strides are in elements; batch 1 for one gemm.
GemmPlan plan_gemm(const Gemm& args, const MatmulPrecision& precision, std::int64_t batch = 1,
                   std::int64_t stride_a = 0, std::int64_t stride_b = 0, std::int64_t stride_c = 0);
// A gemv is a GemvPlan for float and double, a gemm with n == 1 for half, bfloat16 and the
// complex types (cuBLAS has no half gemv; ATen does the same) and for an empty x (k == 0
// scales y).
bool gemv_is_gemm(const Gemv& args);
GemmPlan plan_gemv_as_gemm(const Gemv& args, const MatmulPrecision& precision);
GemvPlan plan_gemv(const Gemv& args);

// cuBLASLt's epilogues that torch uses (addmm with a 1-D bias, _addmm_activation): the
// bias added to alpha * op(A) op(B) in the compute type, then ReLU or GELU (cuBLASLt's
// GELU is the tanh approximation), then the one rounding to D's type.
enum class Epilogue { kBias, kReluBias, kGeluBias };

// One cublasLtMatmul call, column-major: D = epilogue(alpha * op(A) op(B) + bias), with
// `bias` a packed vector of D's m rows broadcast over its columns. C is D and beta is 0,
// so C is not read (gemm.beta == 0, gemm.batch == 1).
struct LtMatmulPlan {
  GemmPlan gemm;
  Epilogue epilogue = Epilogue::kBias;
  const void* bias = nullptr;
};

// The plan of a row-major C (m x n) = epilogue(alpha * op(A) op(B) + bias), `bias` n
// values of the dtype, one per column of C (addmm's 1-D self). args.beta must be 0.
LtMatmulPlan plan_gemm_and_bias(const Gemm& args, const MatmulPrecision& precision, const void* bias,
                                Epilogue epilogue);

// The executors, defined by the variant linked into _CUDAC: queued on `stream`.
void execute(const GemmPlan& plan, torch_core::StreamHandle stream);
void execute(const GemvPlan& plan, torch_core::StreamHandle stream);
void execute(const LtMatmulPlan& plan, torch_core::StreamHandle stream);

}  // namespace torch_cuda::blas
