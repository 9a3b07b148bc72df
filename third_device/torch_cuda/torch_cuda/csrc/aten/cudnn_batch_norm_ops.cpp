// cuDNN's batch norm on the CUDA key, shared by both variants: cudnn_batch_norm and
// cudnn_batch_norm_backward as stock's cudnn/BatchNorm.cpp computes them: stock's checks
// and messages (weight, bias and statistics defined, on the input's GPU, float for half
// input and the input's type otherwise, contiguous; the input contiguous in its suggested
// memory format, 2 to 5 dimensions), the output and the input's gradient in that format,
// then one plan (cudnn/batch_norm_plan.h) that the variant's executor runs on the current
// stream, with its work area and reserve from the caching allocator. Training returns the
// batch's mean and inverse standard deviation and cuDNN's reserve for backward, and
// updates the running statistics in place when given; inference returns empty ones.
//
// Their gradients are stock's formulas (derivatives.yaml: cudnn_batch_norm_backward when
// training). F.batch_norm does not come here yet: stock's chooses cuDNN only when the
// CUDA hooks report it compiled in (see cudnn_conv_ops.cpp).
#include <cstdint>
#include <optional>
#include <tuple>

#include <ATen/TensorUtils.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/ScalarType.h>
#include <torch/library.h>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/batch_norm_executable.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/batch_norm_plan.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn_operands.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_backend.h"

namespace torch_cuda::native {
namespace {

using at::Tensor;

const Tensor& or_undefined(const std::optional<Tensor>& t) {
  static const Tensor undefined;
  return t.has_value() ? *t : undefined;
}

// Stock's checkAllDefined means to say this, but formats an undefined tensor's geometry
// into its message and fails on that instead.
void check_all_defined(at::CheckedFrom c, at::ArrayRef<at::TensorArg> args) {
  for (const auto& arg : args) {
    TORCH_CHECK(arg->defined(), "Expected tensor for argument #", arg.pos, " '", arg.name,
                "' to be non-null, but it was undefined (while checking arguments for ", c, ")");
  }
}

// Stock's type rule: half input takes float weights, any other input its own type.
void check_weight_type(at::CheckedFrom c, const at::TensorArg& input, const at::TensorArg& weight) {
  if (input->scalar_type() == at::kHalf) {
    at::checkScalarType(c, weight, at::kFloat);
  } else {
    at::checkAllSameType(c, {input, weight});
  }
}

cudnn::BatchNormCall describe(cudnn::BatchNormPass pass, const Tensor& input, const Tensor& weight, double epsilon) {
  cudnn::BatchNormCall call;
  call.pass = pass;
  call.data_type = cudnn_data_type_of(input.scalar_type(), "cuDNN's batch norm");
  call.param_type = cudnn_data_type_of(weight.scalar_type(), "cuDNN's batch norm");
  call.dims = static_cast<int>(input.dim());
  call.x = geometry(input);
  const auto format = input.suggest_memory_format();
  call.channels_last = format == at::MemoryFormat::ChannelsLast || format == at::MemoryFormat::ChannelsLast3d;
  call.epsilon = epsilon;
  return call;
}

// Makes the plan's executable on the input's device and runs it on the current stream with
// a work area (and, when training, a reserve) from the caching allocator.
Tensor run_plan(const cudnn::BatchNormPlan& plan, const Tensor& input, cudnn::BatchNormBuffers buffers,
                const Tensor& reserve_in) {
  const auto executable = cudnn::make_batch_norm_executable(plan);
  const auto bytes = input.options().dtype(at::kByte);
  const Tensor workspace = at::empty({executable->workspace_size()}, bytes);
  Tensor reserve = reserve_in;
  if (plan.pass == cudnn::BatchNormPass::kForwardTraining) reserve = at::empty({executable->reserve_size()}, bytes);
  buffers.workspace = workspace.data_ptr();
  if (reserve.defined()) {
    buffers.reserve = reserve.data_ptr();
    buffers.reserve_bytes = reserve.numel();
  }
  const c10::DeviceIndex device = input.device().index();
  executable->run(buffers, backend().streams().current_handle(device));
  return reserve;
}

std::tuple<Tensor, Tensor, Tensor, Tensor> batch_norm_forward(
    const Tensor& input_t, const Tensor& weight_t, const std::optional<Tensor>& bias_opt,
    const std::optional<Tensor>& running_mean_opt, const std::optional<Tensor>& running_var_opt, bool training,
    double exponential_average_factor, double epsilon) {
  const Tensor &bias_t = or_undefined(bias_opt), &running_mean_t = or_undefined(running_mean_opt),
               &running_var_t = or_undefined(running_var_opt);
  const at::TensorArg input{input_t, "input", 1}, weight{weight_t, "weight", 2}, bias{bias_t, "bias", 3},
      running_mean{running_mean_t, "running_mean", 4}, running_var{running_var_t, "running_var", 5};
  const at::CheckedFrom c = "cudnn_batch_norm";
  check_all_defined(c, {input, weight, bias});
  if (!training) check_all_defined(c, {running_mean, running_var});
  at::checkAllSameGPU(c, {input, weight, bias, running_mean, running_var});
  check_weight_type(c, input, weight);
  at::checkAllSameType(c, {weight, bias, running_mean, running_var});
  at::checkAllContiguous(c, {weight, bias, running_mean, running_var});
  TORCH_CHECK(input_t.is_contiguous(input_t.suggest_memory_format()),
              "cudnn_batch_norm: the input must be contiguous in its suggested memory format");
  at::checkDimRange(c, input, 2, 6 /* exclusive */);
  const int64_t num_features = input_t.size(1);
  for (const auto& t : {weight, bias, running_mean, running_var}) {
    if (t->defined()) at::checkNumel(c, t, num_features);
  }
  const c10::DeviceGuard guard(input_t.device());
  const auto pass = training ? cudnn::BatchNormPass::kForwardTraining : cudnn::BatchNormPass::kForwardInference;
  cudnn::BatchNormCall call = describe(pass, input_t, weight_t, epsilon);
  call.exponential_average_factor = exponential_average_factor;
  call.running_stats = running_mean_t.defined() && running_var_t.defined();
  const cudnn::BatchNormPlan plan = planned([&] { return cudnn::plan_batch_norm(call); });

  Tensor output_t = at::empty_like(input_t, input_t.options(), input_t.suggest_memory_format());
  // Inference returns empty statistics and reserve, as stock's (and native_batch_norm).
  const int64_t saved = training ? num_features : 0;
  Tensor save_mean = at::empty({saved}, weight_t.options()), save_var = at::empty({saved}, weight_t.options());
  cudnn::BatchNormBuffers buffers;
  buffers.x = input_t.const_data_ptr();
  buffers.y = output_t.data_ptr();
  buffers.scale = weight_t.const_data_ptr();
  buffers.bias = bias_t.const_data_ptr();
  if (call.running_stats) {
    buffers.running_mean = running_mean_t.data_ptr();
    buffers.running_var = running_var_t.data_ptr();
  }
  buffers.saved_mean = save_mean.data_ptr();
  buffers.saved_inv_std = save_var.data_ptr();
  Tensor reserve = run_plan(plan, input_t, buffers, Tensor());
  if (!training) reserve = at::empty({0}, input_t.options().dtype(at::kByte));
  return {output_t, save_mean, save_var, reserve};
}

// cuDNN's backward is training's: the saved statistics, not the running ones (which the
// schema passes on for double backward only).
std::tuple<Tensor, Tensor, Tensor> batch_norm_backward(
    const Tensor& input_t, const Tensor& grad_output_t, const Tensor& weight_t,
    const std::optional<Tensor>& /*running_mean*/, const std::optional<Tensor>& /*running_var*/,
    const std::optional<Tensor>& save_mean_opt, const std::optional<Tensor>& save_var_opt, double epsilon,
    const Tensor& reserve_space) {
  const Tensor &save_mean_t = or_undefined(save_mean_opt), &save_var_t = or_undefined(save_var_opt);
  const Tensor grad_output_c = grad_output_t.contiguous(input_t.suggest_memory_format());
  const at::TensorArg input{input_t, "input", 1}, grad_output{grad_output_c, "grad_output", 2},
      weight{weight_t, "weight", 3}, save_mean{save_mean_t, "save_mean", 4}, save_var{save_var_t, "save_var", 5};
  const at::CheckedFrom c = "cudnn_batch_norm_backward";
  check_all_defined(c, {input, grad_output, weight, save_mean, save_var});
  at::checkAllSameGPU(c, {input, grad_output, weight, save_mean, save_var});
  check_weight_type(c, input, weight);
  at::checkAllSameType(c, {input, grad_output});
  at::checkAllSameType(c, {weight, save_mean, save_var});
  at::checkAllContiguous(c, {save_mean, save_var});
  TORCH_CHECK(input_t.is_contiguous(input_t.suggest_memory_format()),
              "cudnn_batch_norm_backward: the input must be contiguous in its suggested memory format");
  at::checkDimRange(c, input, 2, 6 /* exclusive */);
  at::checkSameSize(c, input, grad_output);
  const int64_t num_features = input_t.size(1);
  for (const auto& t : {weight, save_mean, save_var}) at::checkNumel(c, t, num_features);
  const c10::DeviceGuard guard(input_t.device());
  const cudnn::BatchNormPlan plan = planned(
      [&] { return cudnn::plan_batch_norm(describe(cudnn::BatchNormPass::kBackward, input_t, weight_t, epsilon)); });

  Tensor grad_input = at::empty(input_t.sizes(), input_t.options(), input_t.suggest_memory_format());
  Tensor grad_weight = at::empty(weight_t.sizes(), weight_t.options());
  Tensor grad_bias = at::empty(weight_t.sizes(), weight_t.options());
  const Tensor weight_c = weight_t.contiguous();
  cudnn::BatchNormBuffers buffers;
  buffers.x = input_t.const_data_ptr();
  buffers.dy = grad_output_c.const_data_ptr();
  buffers.dx = grad_input.data_ptr();
  buffers.scale = weight_c.const_data_ptr();
  buffers.saved_mean = save_mean_t.data_ptr();
  buffers.saved_inv_std = save_var_t.data_ptr();
  buffers.scale_grad = grad_weight.data_ptr();
  buffers.bias_grad = grad_bias.data_ptr();
  run_plan(plan, input_t, buffers, reserve_space);
  return {grad_input, grad_weight, grad_bias};
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, CUDA, m) {
  m.impl("cudnn_batch_norm", TORCH_FN(batch_norm_forward));
  m.impl("cudnn_batch_norm_backward", TORCH_FN(batch_norm_backward));
}

}  // namespace torch_cuda::native
