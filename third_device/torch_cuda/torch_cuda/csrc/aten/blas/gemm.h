// The cuBLAS executor of gemm_plan.h's plans (the real variant), and row-major entry
// points over it for torch-free callers and tests: gemm, strided-batched gemm and gemv.
//
// Precision follows torch.backends.cuda.matmul (MatmulPrecision; math_config):
//   float     allow_tf32 -> CUBLAS_COMPUTE_32F_FAST_TF32 and CUBLAS_TF32_TENSOR_OP_MATH,
//             otherwise CUBLAS_COMPUTE_32F with CUBLAS_DEFAULT_MATH (full fp32)
//   double    CUBLAS_COMPUTE_64F
//   complex   as float (complex64) and double (complex128), with complex alpha and beta
//   half/bf16 fp32 accumulation (CUBLAS_COMPUTE_32F, float alpha/beta); without
//             allow_{fp16,bf16}_reduced_precision_reduction the math mode adds
//             CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION
// The math mode is set on every call, so nothing leaks between calls on one handle.
// Invalid arguments throw std::invalid_argument before any CUDA call.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <library_types.h>

#include <cstdint>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/blas/gemm_plan.h"

namespace torch_cuda::blas {

struct MathConfig {
  cudaDataType_t data_type;        // A, B and C
  cublasComputeType_t compute_type;
  cudaDataType_t scale_type;       // alpha and beta
  cublasMath_t math_mode;
};

// How a gemm of `dtype` runs under `precision`: pure, so it is tested without a GPU.
MathConfig math_config(DType dtype, const MatmulPrecision& precision);

// Plan (under the process-wide matmul_precision()) and execute on `stream`.
void gemm(const Gemm& args, cudaStream_t stream);
void gemm_strided_batched(const Gemm& args, std::int64_t batch, std::int64_t stride_a, std::int64_t stride_b,
                          std::int64_t stride_c, cudaStream_t stream);
// float/double: cublas{S,D}gemv; half/bfloat16: a (rows x 1) gemm through cublasGemmEx.
void gemv(const Gemv& args, cudaStream_t stream);

}  // namespace torch_cuda::blas
