// Reflection and replication padding (1d/2d/3d, forward and backward) on any torch_core
// backend: stock's CUDA kernels (the structured ones' meta functions check and size; the
// others check here with stock's messages). Padding is a gather along each spatial
// dimension (resampling.h): the forward gathers, for every dtype; the backward adds each
// output gradient to its source through the transposed gather.
#include <vector>

#include <ATen/TensorMeta.h>
#include <ATen/native/Padding.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/reflection_pad1d_backward_native.h>
#include <ATen/ops/reflection_pad1d_native.h>
#include <ATen/ops/reflection_pad2d_backward_native.h>
#include <ATen/ops/reflection_pad2d_native.h>
#include <ATen/ops/reflection_pad3d_backward_native.h>
#include <ATen/ops/reflection_pad3d_native.h>
#include <ATen/ops/replication_pad1d_backward_native.h>
#include <ATen/ops/replication_pad1d_native.h>
#include <ATen/ops/replication_pad2d_backward_native.h>
#include <ATen/ops/replication_pad2d_native.h>
#include <ATen/ops/replication_pad3d_backward_native.h>
#include <ATen/ops/replication_pad3d_native.h>
#include <c10/util/Exception.h>

#include "torch_core/csrc/aten/composite/resampling.h"

namespace at::native {

namespace {

// Each spatial dimension's source indices, first to last (`padding` lists the last
// dimension's pair first).
std::vector<Tensor> source_indices(const Tensor& input, IntArrayRef padding, bool reflect) {
  const int64_t dims = static_cast<int64_t>(padding.size()) / 2;
  std::vector<Tensor> indices;
  for (int64_t d = 0; d < dims; ++d) {
    const int64_t pair = dims - 1 - d;
    indices.push_back(torch_core::composite::padding_indices(input.size(input.dim() - dims + d), padding[2 * pair],
                                                             padding[2 * pair + 1], reflect));
  }
  return indices;
}

void pad(const Tensor& out, const Tensor& input, IntArrayRef padding, bool reflect) {
  torch_core::composite::select_into(out, input, source_indices(input, padding, reflect));
}

void pad_backward(const Tensor& grad_input, const Tensor& grad_output, const Tensor& input, IntArrayRef padding,
                  bool reflect, const char* kernel_name) {
  torch_core::composite::check_floating(grad_output.scalar_type(), kernel_name);
  const std::vector<Tensor> indices = source_indices(input, padding, reflect);
  const int64_t first = input.dim() - static_cast<int64_t>(indices.size());
  std::vector<Tensor> weights;
  for (std::size_t d = 0; d < indices.size(); ++d) {
    weights.push_back(torch_core::composite::gather_weights(
        indices[d], input.size(first + static_cast<int64_t>(d)),
        torch_core::composite::accumulate_type(grad_output.scalar_type())));
  }
  torch_core::composite::resample_backward_into(grad_input, grad_output, weights);
}

// grad_output's spatial sizes against the padded input's, with stock's message (`names`
// from the last dimension: width, height, depth).
void check_grad_output(const Tensor& grad_output, const Tensor& input, IntArrayRef padding, const char* tensor_name) {
  static constexpr const char* kNames[] = {"width", "height", "depth"};
  const int64_t dims = static_cast<int64_t>(padding.size()) / 2;
  for (int64_t pair = 0; pair < dims; ++pair) {
    const int64_t dim = input.dim() - 1 - pair;
    const int64_t expected = input.size(dim) + padding[2 * pair] + padding[2 * pair + 1];
    TORCH_CHECK(expected == grad_output.size(dim), tensor_name, " ", kNames[pair], " unexpected. Expected: ", expected,
                ", Got: ", grad_output.size(dim));
  }
}

// The non-structured replication backwards (2d, 3d): stock's checks, then the gradient.
Tensor& replication_backward(const Tensor& grad_output, const Tensor& input, IntArrayRef padding,
                             std::size_t padding_size, const char* kernel_name, Tensor& grad_input) {
  TORCH_CHECK(padding.size() == padding_size, "padding Size is expected to be ", padding_size);
  check_grad_output(grad_output, input, padding, "gradOutput");
  grad_input.resize_as_(input);
  pad_backward(grad_input, grad_output, input, padding, /*reflect=*/false, kernel_name);
  return grad_input;
}

}  // namespace

TORCH_IMPL_FUNC(reflection_pad1d_out_cuda)(const Tensor& input, IntArrayRef padding, const Tensor& output) {
  pad(output, input, padding, /*reflect=*/true);
}
TORCH_IMPL_FUNC(reflection_pad3d_out_cuda)(const Tensor& input, IntArrayRef padding, const Tensor& output) {
  pad(output, input, padding, /*reflect=*/true);
}
TORCH_IMPL_FUNC(replication_pad1d_out_cuda)(const Tensor& input, IntArrayRef padding, const Tensor& output) {
  pad(output, input, padding, /*reflect=*/false);
}
TORCH_IMPL_FUNC(replication_pad2d_out_cuda)(const Tensor& input, IntArrayRef padding, const Tensor& output) {
  pad(output, input, padding, /*reflect=*/false);
}
TORCH_IMPL_FUNC(replication_pad3d_out_cuda)(const Tensor& input, IntArrayRef padding, const Tensor& output) {
  pad(output, input, padding, /*reflect=*/false);
}

TORCH_IMPL_FUNC(reflection_pad1d_backward_out_cuda)
(const Tensor& grad_output, const Tensor& input, IntArrayRef padding, const Tensor& grad_input) {
  pad_backward(grad_input, grad_output, input, padding, /*reflect=*/true, "reflection_pad1d_backward_out_cuda");
}
TORCH_IMPL_FUNC(reflection_pad3d_backward_out_cuda)
(const Tensor& grad_output, const Tensor& input, IntArrayRef padding, const Tensor& grad_input) {
  pad_backward(grad_input, grad_output, input, padding, /*reflect=*/true, "reflection_pad3d_backward_out_cuda");
}
TORCH_IMPL_FUNC(replication_pad1d_backward_out_cuda)
(const Tensor& grad_output, const Tensor& input, IntArrayRef padding, const Tensor& grad_input) {
  pad_backward(grad_input, grad_output, input, padding, /*reflect=*/false, "replication_pad1d_backward_cuda");
}

// Stock's reflection_pad2d_out_template checks.
Tensor& reflection_pad2d_out_cuda(const Tensor& input, IntArrayRef padding, Tensor& output) {
  padding::check_valid_input<2>(input, padding);
  const int64_t dim_h = input.dim() - 2, dim_w = input.dim() - 1;
  const int64_t input_h = input.size(dim_h), input_w = input.size(dim_w);
  const int64_t pad_l = padding[0], pad_r = padding[1], pad_t = padding[2], pad_b = padding[3];
  TORCH_CHECK(pad_l < input_w && pad_r < input_w,
              "Padding size should be less than the corresponding input dimension, but got: padding (", pad_l, ", ",
              pad_r, ") at dimension ", dim_w, " of input ", input.sizes());
  TORCH_CHECK(pad_t < input_h && pad_b < input_h,
              "Padding size should be less than the corresponding input dimension, but got: padding (", pad_t, ", ",
              pad_b, ") at dimension ", dim_h, " of input ", input.sizes());
  const int64_t output_h = input_h + pad_t + pad_b, output_w = input_w + pad_l + pad_r;
  TORCH_CHECK(output_w >= 1 || output_h >= 1, "input (H: ", input_h, ", W: ", input_w,
              ")is too small.  Calculated output H: ", output_h, " W: ", output_w);
  std::vector<int64_t> shape(input.sizes().begin(), input.sizes().end() - 2);
  shape.insert(shape.end(), {output_h, output_w});
  output.resize_(shape);
  pad(output, input, padding, /*reflect=*/true);
  return output;
}

Tensor reflection_pad2d_cuda(const Tensor& input, IntArrayRef padding) {
  Tensor output = at::empty({0}, input.options());
  return reflection_pad2d_out_cuda(input, padding, output);
}

Tensor& reflection_pad2d_backward_out_cuda(const Tensor& grad_output, const Tensor& input, IntArrayRef padding,
                                           Tensor& grad_input) {
  check_grad_output(grad_output, input, padding, "grad_output");
  grad_input.resize_as_(input);
  pad_backward(grad_input, grad_output, input, padding, /*reflect=*/true, "reflection_pad2d_backward_out_cuda");
  return grad_input;
}

Tensor reflection_pad2d_backward_cuda(const Tensor& grad_output, const Tensor& input, IntArrayRef padding) {
  Tensor grad_input = at::empty_like(input);
  return reflection_pad2d_backward_out_cuda(grad_output, input, padding, grad_input);
}

Tensor& replication_pad2d_backward_out_cuda(const Tensor& grad_output, const Tensor& input, IntArrayRef padding,
                                            Tensor& grad_input) {
  return replication_backward(grad_output, input, padding, 4, "replication_pad2d_backward_cuda", grad_input);
}

Tensor replication_pad2d_backward_cuda(const Tensor& grad_output, const Tensor& input, IntArrayRef padding) {
  Tensor grad_input = at::empty_like(input);
  return replication_pad2d_backward_out_cuda(grad_output, input, padding, grad_input);
}

Tensor& replication_pad3d_backward_out_cuda(const Tensor& grad_output, const Tensor& input, IntArrayRef padding,
                                            Tensor& grad_input) {
  return replication_backward(grad_output, input, padding, 6, "replication_pad3d_backward_cuda", grad_input);
}

Tensor replication_pad3d_backward_cuda(const Tensor& grad_output, const Tensor& input, IntArrayRef padding) {
  Tensor grad_input = at::empty_like(input);
  return replication_pad3d_backward_out_cuda(grad_output, input, padding, grad_input);
}

}  // namespace at::native
