// avg_pool2d/3d and adaptive_avg_pool2d/3d, forward and backward, on any torch_core
// backend: stock's CUDA kernels (their structured meta functions check and size the
// outputs; the adaptive ones check as stock's CUDA templates do) as separable weighted
// sums (resampling.h).
#include <vector>

#include <ATen/TensorMeta.h>
#include <ATen/ops/_adaptive_avg_pool2d_backward_native.h>
#include <ATen/ops/_adaptive_avg_pool2d_native.h>
#include <ATen/ops/_adaptive_avg_pool3d_backward_native.h>
#include <ATen/ops/_adaptive_avg_pool3d_native.h>
#include <ATen/ops/adaptive_avg_pool2d_native.h>
#include <ATen/ops/adaptive_avg_pool3d_backward_native.h>
#include <ATen/ops/adaptive_avg_pool3d_native.h>
#include <ATen/ops/avg_pool2d_backward_native.h>
#include <ATen/ops/avg_pool2d_native.h>
#include <ATen/ops/avg_pool3d_backward_native.h>
#include <ATen/ops/avg_pool3d_native.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>

#include "torch_core/csrc/aten/composite/resampling.h"

namespace at::native {

namespace {

using torch_core::composite::accumulate_type;
using torch_core::composite::adaptive_average_weights;
using torch_core::composite::average_weights;
using torch_core::composite::Axis;
using torch_core::composite::check_floating;

// One value per spatial dimension from the functional API's lists (one value for all, or
// one each; an empty stride is the kernel size).
std::vector<int64_t> per_dim(IntArrayRef values, int64_t dims, IntArrayRef fallback = {}) {
  if (values.empty()) return per_dim(fallback, dims);
  std::vector<int64_t> out(dims);
  for (int64_t d = 0; d < dims; ++d) out[d] = values.size() == 1 ? values[0] : values[d];
  return out;
}

// The weights of avg_pool over the last `dims` dimensions of `input` into `output_sizes`.
std::vector<Tensor> avg_pool_weights(const Tensor& input, IntArrayRef output_sizes, IntArrayRef kernel_size,
                                     IntArrayRef stride, IntArrayRef padding, bool count_include_pad,
                                     std::optional<int64_t> divisor_override) {
  const int64_t dims = static_cast<int64_t>(output_sizes.size());
  const std::vector<int64_t> k = per_dim(kernel_size, dims), s = per_dim(stride, dims, kernel_size),
                             p = per_dim(padding, dims);
  const ScalarType acc = accumulate_type(input.scalar_type());
  std::vector<Tensor> weights;
  for (int64_t d = 0; d < dims; ++d) {
    const Axis axis{input.size(input.dim() - dims + d), output_sizes[d]};
    weights.push_back(average_weights(axis, k[d], s[d], p[d], count_include_pad, !divisor_override, acc));
  }
  if (divisor_override) weights[0].div_(static_cast<double>(*divisor_override));
  return weights;
}

// adaptive_avg_pool's weights from `input`'s last output_sizes.size() dimensions.
std::vector<Tensor> adaptive_weights(const Tensor& input, IntArrayRef output_sizes) {
  const int64_t dims = static_cast<int64_t>(output_sizes.size());
  std::vector<Tensor> weights;
  for (int64_t d = 0; d < dims; ++d) {
    const Axis axis{input.size(input.dim() - dims + d), output_sizes[d]};
    weights.push_back(adaptive_average_weights(axis, accumulate_type(input.scalar_type())));
  }
  return weights;
}

// The output's shape: input's leading dimensions, then output_size.
std::vector<int64_t> adaptive_shape(const Tensor& input, IntArrayRef output_size) {
  std::vector<int64_t> shape(input.sizes().begin(), input.sizes().end() - output_size.size());
  shape.insert(shape.end(), output_size.begin(), output_size.end());
  return shape;
}

void check_adaptive2d(const Tensor& input, IntArrayRef output_size) {
  TORCH_CHECK(output_size.size() == 2, "adaptive_avg_pool2d: output_size must be 2");
  const int64_t ndim = input.dim();
  TORCH_CHECK(ndim == 3 || ndim == 4, "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got ", input.sizes());
  for (const int64_t i : {-2, -1}) {
    TORCH_CHECK(input.size(i) > 0,
                "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch dimensions, "
                "but input has sizes ",
                input.sizes(), " with dimension ", i + ndim, " being empty");
  }
  check_floating(input.scalar_type(), "adaptive_avg_pool2d_cuda");
}

void check_adaptive3d(const Tensor& input, IntArrayRef output_size) {
  TORCH_CHECK(output_size.size() == 3, "adaptive_avg_pool3d: internal error: output_size.size() must be 3");
  for (int64_t i = 1; i < input.dim(); ++i) {
    TORCH_CHECK(input.size(i) > 0,
                "adaptive_avg_pool3d_cuda(): Expected input to have non-zero size for non-batch dimensions, "
                "but input has sizes ",
                input.sizes(), " with dimension ", i, " being empty");
  }
  TORCH_CHECK(input.dim() == 4 || input.dim() == 5, "adaptive_avg_pool3d_cuda(): Expected 4D or 5D tensor, but got ",
              input.sizes());
  check_floating(input.scalar_type(), "adaptive_avg_pool3d_cuda");
}

}  // namespace

TORCH_IMPL_FUNC(avg_pool2d_out_cuda)
(const Tensor& input, int64_t kH, int64_t kW, int64_t dH, int64_t dW, int64_t padH, int64_t padW, bool,
 bool count_include_pad, std::optional<int64_t> divisor_override, const Tensor& output) {
  check_floating(input.scalar_type(), "avg_pool2d_out_cuda_frame");
  const std::vector<int64_t> kernel{kH, kW}, stride{dH, dW}, padding{padH, padW};
  torch_core::composite::resample_into(
      output, input,
      avg_pool_weights(input, output.sizes().slice(output.dim() - 2), kernel, stride, padding, count_include_pad,
                       divisor_override));
}

TORCH_IMPL_FUNC(avg_pool2d_backward_out_cuda)
(const Tensor& grad_output, const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
 bool, bool count_include_pad, std::optional<int64_t> divisor_override, const Tensor& grad_input) {
  check_floating(input.scalar_type(), "avg_pool2d_backward_out_cuda_frame");
  torch_core::composite::resample_backward_into(
      grad_input, grad_output,
      avg_pool_weights(input, grad_output.sizes().slice(grad_output.dim() - 2), kernel_size, stride, padding,
                       count_include_pad, divisor_override));
}

TORCH_IMPL_FUNC(avg_pool3d_out_cuda)
(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool, bool count_include_pad,
 std::optional<int64_t> divisor_override, const Tensor& output) {
  check_floating(input.scalar_type(), "avg_pool3d_out_cuda");
  torch_core::composite::resample_into(
      output, input,
      avg_pool_weights(input, output.sizes().slice(output.dim() - 3), kernel_size, stride, padding, count_include_pad,
                       divisor_override));
}

TORCH_IMPL_FUNC(avg_pool3d_backward_out_cuda)
(const Tensor& grad_output, const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
 bool, bool count_include_pad, std::optional<int64_t> divisor_override, const Tensor& grad_input) {
  check_floating(input.scalar_type(), "avg_pool3d_backward_out_cuda");
  torch_core::composite::resample_backward_into(
      grad_input, grad_output,
      avg_pool_weights(input, grad_output.sizes().slice(grad_output.dim() - 3), kernel_size, stride, padding,
                       count_include_pad, divisor_override));
}

Tensor& adaptive_avg_pool2d_out_cuda(const Tensor& input, IntArrayRef output_size, Tensor& output) {
  check_adaptive2d(input, output_size);
  output.resize_(adaptive_shape(input, output_size), input.suggest_memory_format());
  torch_core::composite::resample_into(output, input, adaptive_weights(input, output_size));
  return output;
}

Tensor adaptive_avg_pool2d_cuda(const Tensor& input, IntArrayRef output_size) {
  Tensor output = at::empty({0}, input.options());
  return adaptive_avg_pool2d_out_cuda(input, output_size, output);
}

Tensor adaptive_avg_pool2d_backward_cuda(const Tensor& grad_output, const Tensor& input) {
  check_floating(input.scalar_type(), "adaptive_avg_pool2d_backward_cuda");
  Tensor grad_input = at::empty_like(input, input.suggest_memory_format());
  torch_core::composite::resample_backward_into(grad_input, grad_output,
                                                adaptive_weights(input, grad_output.sizes().slice(grad_output.dim() - 2)));
  return grad_input;
}

Tensor& adaptive_avg_pool3d_out_cuda(const Tensor& input, IntArrayRef output_size, Tensor& output) {
  check_adaptive3d(input, output_size);
  output.resize_(adaptive_shape(input, output_size));
  torch_core::composite::resample_into(output, input, adaptive_weights(input, output_size));
  return output;
}

Tensor adaptive_avg_pool3d_cuda(const Tensor& input, IntArrayRef output_size) {
  Tensor output = at::empty({0}, input.options());
  return adaptive_avg_pool3d_out_cuda(input, output_size, output);
}

Tensor& adaptive_avg_pool3d_backward_out_cuda(const Tensor& grad_output, const Tensor& input, Tensor& grad_input) {
  check_floating(input.scalar_type(), "adaptive_avg_pool3d_backward_cuda");
  grad_input.resize_as_(input);
  torch_core::composite::resample_backward_into(grad_input, grad_output,
                                                adaptive_weights(input, grad_output.sizes().slice(grad_output.dim() - 3)));
  return grad_input;
}

Tensor adaptive_avg_pool3d_backward_cuda(const Tensor& grad_output, const Tensor& input) {
  Tensor grad_input = at::empty_like(input);
  return adaptive_avg_pool3d_backward_out_cuda(grad_output, input, grad_input);
}

}  // namespace at::native
