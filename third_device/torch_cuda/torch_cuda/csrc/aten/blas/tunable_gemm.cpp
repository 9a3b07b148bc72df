#include "third_device/torch_cuda/torch_cuda/csrc/aten/blas/tunable_gemm.h"

#include <algorithm>
#include <chrono>

#include <ATen/ops/empty_like.h>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/blas/tuning_context.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_backend.h"

namespace torch_cuda::blas::tunable {

namespace {

// Stock's TypeName<T> spellings; fp32 under allow_tf32 is its own type ("tf32").
const char* type_name(const GemmPlan& plan) {
  switch (plan.dtype) {
    case DType::kFloat64:
      return "double";
    case DType::kFloat16:
      return "Half";
    case DType::kBFloat16:
      return "BFloat16";
    case DType::kComplex64:
      return "c10::complex<float>";
    case DType::kComplex128:
      return "c10::complex<double>";
    case DType::kFloat32:
      break;
  }
  return plan.precision.allow_tf32 ? "tf32" : "float";
}

char op_char(bool trans, bool upper) {
  if (upper) return trans ? 'T' : 'N';
  return trans ? 't' : 'n';
}

// The average time of the plan's execution on a scratch C: up to the context's iterations
// and duration, at least one run (stock's StreamTimer loop, timed on the host around a
// synchronised stream).
double time_default(const GemmPlan& plan, const at::Tensor& c, torch_core::StreamHandle stream) {
  const TuningContext& context = TuningContext::get();
  at::Tensor scratch = at::empty_like(c);
  if (plan.beta != 0.0 || plan.beta_imag != 0.0) scratch.copy_(c);  // beta != 0 reads C
  GemmPlan trial = plan;
  trial.c = scratch.data_ptr();
  torch_core::DeviceRuntime& runtime = backend().runtime();
  runtime.synchronize_stream(stream);
  const int max_iterations = std::max(1, context.max_tuning_iterations());
  const double max_ms = context.max_tuning_duration_ms();
  const auto start = std::chrono::steady_clock::now();
  int iterations = 0;
  double elapsed_ms = 0.0;
  do {
    execute(trial, stream);
    runtime.synchronize_stream(stream);
    ++iterations;
    elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  } while (iterations < max_iterations && elapsed_ms < max_ms);
  return elapsed_ms / iterations;
}

}  // namespace

std::string op_signature(const GemmPlan& plan, bool batched) {
  return std::string(batched ? "GemmStridedBatchedTunableOp_" : "GemmTunableOp_") + type_name(plan) + "_" +
         op_char(plan.trans_a, true) + op_char(plan.trans_b, true);
}

std::string params_signature(const GemmPlan& plan, bool batched) {
  std::string params = std::string{op_char(plan.trans_a, false), op_char(plan.trans_b, false)} + "_" +
                       std::to_string(plan.m) + "_" + std::to_string(plan.n) + "_" + std::to_string(plan.k);
  if (batched) params += "_B_" + std::to_string(plan.batch);
  return params + "_ld_" + std::to_string(plan.lda) + "_" + std::to_string(plan.ldb) + "_" + std::to_string(plan.ldc);
}

void execute_gemm(const GemmPlan& plan, bool batched, const at::Tensor& c, torch_core::StreamHandle stream) {
  TuningContext& context = TuningContext::get();
  if (context.enabled()) {
    const std::string op = op_signature(plan, batched);
    const std::string params = params_signature(plan, batched);
    if (!context.find(op, params)) {
      if (context.record_untuned_enabled()) context.record_untuned(op, params, c.get_device());
      if (context.tuning_enabled()) context.add(op, params, Result{"Default", time_default(plan, c, stream)});
    }
  }
  execute(plan, stream);  // "Default", every GEMM's solution on CUDA
}

}  // namespace torch_cuda::blas::tunable
