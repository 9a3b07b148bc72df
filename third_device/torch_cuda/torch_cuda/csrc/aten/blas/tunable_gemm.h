// The CUDA key's GEMMs through TunableOp (tuning_context.h): signatures in stock's format,
// so a results or untuned file is interchangeable with stock CUDA torch's, and tuning of
// the one solution CUDA builds have, "Default".
#pragma once

#include <string>

#include <ATen/core/Tensor.h>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/blas/gemm_plan.h"
#include "torch_core/csrc/runtime/device_runtime.h"

namespace torch_cuda::blas::tunable {

// "GemmTunableOp_float_NT" / "GemmStridedBatchedTunableOp_Half_NN" (cuBLAS's transposes).
std::string op_signature(const GemmPlan& plan, bool batched);
// "nt_<m>_<n>_<k>[_B_<batch>]_ld_<lda>_<ldb>_<ldc>", cuBLAS's column-major sizes.
std::string params_signature(const GemmPlan& plan, bool batched);

// Executes `plan`, whose C is `c`, on `stream`. With TunableOp enabled, a signature not
// yet tuned is first logged (record_untuned) and tuned (timed on a scratch copy of C, so
// the caller's output is written once).
void execute_gemm(const GemmPlan& plan, bool batched, const at::Tensor& c, torch_core::StreamHandle stream);

}  // namespace torch_cuda::blas::tunable
