// layer_norm and batch_norm, forward and backward, on any torch_core backend: stock's CUDA
// kernels (layer_norm_cuda, batch_norm_cuda, ...) defined over operators the kernel engine
// runs (mean, var with Welford, rsqrt, sum, broadcasting arithmetic). They return what
// stock's return: mean and rstd (layer_norm) in the input's opmath dtype with the reduced
// dimensions kept; save_mean and save_invstd (batch_norm) per channel, empty in eval mode;
// running statistics updated in place with the unbiased variance.
#include <array>
#include <tuple>
#include <vector>

#include <ATen/TensorOperators.h>
#include <ATen/native/Resize.h>
#include <ATen/native/layer_norm.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/mean.h>
#include <ATen/ops/native_batch_norm_backward_native.h>
#include <ATen/ops/native_batch_norm_native.h>
#include <ATen/ops/native_layer_norm_backward_native.h>
#include <ATen/ops/native_layer_norm_native.h>
#include <ATen/ops/rsqrt.h>
#include <ATen/ops/sum.h>
#include <ATen/ops/var.h>
#include <c10/util/Exception.h>

#include "torch_core/csrc/aten/composite/opmath.h"

namespace at::native {

namespace {

using torch_core::composite::opmath;

std::vector<int64_t> range(int64_t begin, int64_t end) {
  std::vector<int64_t> dims;
  for (int64_t d = begin; d < end; ++d) dims.push_back(d);
  return dims;
}

// Every dimension but the channels (1).
std::vector<int64_t> batch_norm_dims(const Tensor& input) {
  std::vector<int64_t> dims = {0};
  for (int64_t d = 2; d < input.dim(); ++d) dims.push_back(d);
  return dims;
}

// A per-channel vector shaped to broadcast against an (N, C, ...) input.
Tensor per_channel(const Tensor& v, const Tensor& input) {
  std::vector<int64_t> shape(static_cast<size_t>(input.dim()), 1);
  shape[1] = input.size(1);
  return v.view(shape);
}

bool defined(const std::optional<Tensor>& t) { return t.has_value() && t->defined(); }

// t summed over `dims`; no dimension means no reduction (at::sum would reduce them all).
Tensor sum_over(const Tensor& t, IntArrayRef dims) { return dims.empty() ? t : at::sum(t, dims); }

}  // namespace

std::tuple<Tensor, Tensor, Tensor> layer_norm_cuda(const Tensor& input, IntArrayRef normalized_shape,
                                                   const std::optional<Tensor>& weight,
                                                   const std::optional<Tensor>& bias, double eps) {
  // Stock's own checks and messages (normalized_shape against the input, weight and bias).
  (void)_check_layer_norm_inputs(input, normalized_shape, weight.value_or(Tensor()), bias.value_or(Tensor()));
  const int64_t axis = input.dim() - static_cast<int64_t>(normalized_shape.size());
  const std::vector<int64_t> dims = range(axis, input.dim());
  const Tensor x = opmath(input);
  const Tensor mean = at::mean(x, dims, /*keepdim=*/true);
  const Tensor rstd = at::rsqrt(at::var(x, dims, /*correction=*/0, /*keepdim=*/true) + eps);
  Tensor y = (x - mean) * rstd;
  if (defined(weight)) y = y * *weight;
  if (defined(bias)) y = y + *bias;
  Tensor out = at::empty_like(input, at::MemoryFormat::Contiguous);
  out.copy_(y);
  return {out, mean, rstd};
}

std::tuple<Tensor, Tensor, Tensor> layer_norm_backward_cuda(const Tensor& grad_out, const Tensor& input,
                                                            IntArrayRef normalized_shape, const Tensor& mean,
                                                            const Tensor& rstd, const std::optional<Tensor>& weight,
                                                            const std::optional<Tensor>& bias,
                                                            std::array<bool, 3> output_mask) {
  const int64_t axis = input.dim() - static_cast<int64_t>(normalized_shape.size());
  const std::vector<int64_t> inner = range(axis, input.dim()), outer = range(0, axis);
  const Tensor g = opmath(grad_out);
  const Tensor x_hat = (opmath(input) - mean) * rstd;
  Tensor grad_input, grad_weight, grad_bias;
  if (output_mask[0]) {
    const Tensor gw = defined(weight) ? g * *weight : g;
    const Tensor dx = rstd * (gw - at::mean(gw, inner, true) - x_hat * at::mean(gw * x_hat, inner, true));
    grad_input = at::empty_like(input, at::MemoryFormat::Contiguous);
    grad_input.copy_(dx);
  }
  if (output_mask[1] && defined(weight)) {
    grad_weight = at::empty_like(*weight);
    grad_weight.copy_(sum_over(g * x_hat, outer));
  }
  if (output_mask[2] && defined(bias)) {
    grad_bias = at::empty_like(*bias);
    grad_bias.copy_(sum_over(g, outer));
  }
  return {grad_input, grad_weight, grad_bias};
}

std::tuple<Tensor, Tensor, Tensor> batch_norm_cuda(const Tensor& input, const std::optional<Tensor>& weight,
                                                   const std::optional<Tensor>& bias,
                                                   const std::optional<Tensor>& running_mean,
                                                   const std::optional<Tensor>& running_var, bool training,
                                                   double momentum, double eps) {
  TORCH_CHECK(input.dim() >= 2, "batch_norm: expected an input with at least 2 dimensions, got ", input.dim());
  const std::vector<int64_t> dims = batch_norm_dims(input);
  const Tensor x = opmath(input);
  Tensor mean, invstd, save_mean, save_invstd;
  if (training) {
    mean = at::mean(x, dims);
    const Tensor var = at::var(x, dims, /*correction=*/0);
    invstd = at::rsqrt(var + eps);
    save_mean = mean;
    save_invstd = invstd;
    const int64_t n = input.numel() / input.size(1);
    if (defined(running_mean)) running_mean->copy_(*running_mean * (1 - momentum) + mean * momentum);
    if (defined(running_var)) {
      const double unbias = n > 1 ? static_cast<double>(n) / static_cast<double>(n - 1) : 1.0;
      running_var->copy_(*running_var * (1 - momentum) + var * (unbias * momentum));
    }
  } else {
    TORCH_CHECK(defined(running_mean) && defined(running_var),
                "batch_norm: running_mean and running_var must be defined in evaluation mode");
    mean = opmath(*running_mean);
    invstd = at::rsqrt(opmath(*running_var) + eps);
    save_mean = at::empty({0}, x.options());
    save_invstd = at::empty({0}, x.options());
  }
  Tensor y = (x - per_channel(mean, input)) * per_channel(invstd, input);
  if (defined(weight)) y = y * per_channel(*weight, input);
  if (defined(bias)) y = y + per_channel(*bias, input);
  Tensor out = at::empty_like(input, input.suggest_memory_format());
  out.copy_(y);
  return {out, save_mean, save_invstd};
}

std::tuple<Tensor&, Tensor&, Tensor&> batch_norm_cuda_out(const Tensor& input, const std::optional<Tensor>& weight,
                                                          const std::optional<Tensor>& bias,
                                                          const std::optional<Tensor>& running_mean,
                                                          const std::optional<Tensor>& running_var, bool training,
                                                          double momentum, double eps, Tensor& out,
                                                          Tensor& save_mean, Tensor& save_invstd) {
  const auto [y, m, s] = batch_norm_cuda(input, weight, bias, running_mean, running_var, training, momentum, eps);
  at::native::resize_output(out, y.sizes());
  out.copy_(y);
  at::native::resize_output(save_mean, m.sizes());
  save_mean.copy_(m);
  at::native::resize_output(save_invstd, s.sizes());
  save_invstd.copy_(s);
  return {out, save_mean, save_invstd};
}

std::tuple<Tensor, Tensor, Tensor> batch_norm_backward_cuda(
    const Tensor& grad_out, const Tensor& input, const std::optional<Tensor>& weight,
    const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
    const std::optional<Tensor>& save_mean, const std::optional<Tensor>& save_invstd, bool train, double eps,
    std::array<bool, 3> output_mask) {
  const std::vector<int64_t> dims = batch_norm_dims(input);
  const Tensor g = opmath(grad_out), x = opmath(input);
  Tensor mean, invstd;
  if (train) {
    mean = *save_mean;
    invstd = *save_invstd;
  } else {
    mean = opmath(*running_mean);
    invstd = at::rsqrt(opmath(*running_var) + eps);
  }
  const Tensor x_hat = (x - per_channel(mean, input)) * per_channel(invstd, input);
  Tensor grad_input, grad_weight, grad_bias;
  if (output_mask[0]) {
    Tensor scale = per_channel(invstd, input);
    if (defined(weight)) scale = scale * per_channel(*weight, input);
    const Tensor dx = train ? scale * (g - per_channel(at::mean(g, dims), input) -
                                       x_hat * per_channel(at::mean(g * x_hat, dims), input))
                            : g * scale;
    grad_input = at::empty_like(input, input.suggest_memory_format());
    grad_input.copy_(dx);
  }
  if (output_mask[1]) {
    grad_weight = at::empty({input.size(1)}, defined(weight) ? weight->options() : input.options());
    grad_weight.copy_(at::sum(g * x_hat, dims));
  }
  if (output_mask[2]) {
    grad_bias = at::empty({input.size(1)}, defined(weight) ? weight->options() : input.options());
    grad_bias.copy_(at::sum(g, dims));
  }
  return {grad_input, grad_weight, grad_bias};
}

}  // namespace at::native
