// Upsampling on any torch_core backend: stock's CUDA structured kernels for nearest and
// nearest-exact (1d/2d/3d), linear1d, bilinear2d, bicubic2d and trilinear3d, forward and
// backward (their meta functions check and size the outputs), as separable resampling
// (resampling.h): nearest's forward gathers, so it keeps every dtype exactly; the other
// modes and every backward weigh.
#include <initializer_list>
#include <optional>
#include <vector>

#include <ATen/TensorMeta.h>
#include <ATen/ops/_upsample_nearest_exact1d_backward_native.h>
#include <ATen/ops/_upsample_nearest_exact1d_native.h>
#include <ATen/ops/_upsample_nearest_exact2d_backward_native.h>
#include <ATen/ops/_upsample_nearest_exact2d_native.h>
#include <ATen/ops/_upsample_nearest_exact3d_backward_native.h>
#include <ATen/ops/_upsample_nearest_exact3d_native.h>
#include <ATen/ops/upsample_bicubic2d_backward_native.h>
#include <ATen/ops/upsample_bicubic2d_native.h>
#include <ATen/ops/upsample_bilinear2d_backward_native.h>
#include <ATen/ops/upsample_bilinear2d_native.h>
#include <ATen/ops/upsample_linear1d_backward_native.h>
#include <ATen/ops/upsample_linear1d_native.h>
#include <ATen/ops/upsample_nearest1d_backward_native.h>
#include <ATen/ops/upsample_nearest1d_native.h>
#include <ATen/ops/upsample_nearest2d_backward_native.h>
#include <ATen/ops/upsample_nearest2d_native.h>
#include <ATen/ops/upsample_nearest3d_backward_native.h>
#include <ATen/ops/upsample_nearest3d_native.h>
#include <ATen/ops/upsample_trilinear3d_backward_native.h>
#include <ATen/ops/upsample_trilinear3d_native.h>

#include "torch_core/csrc/aten/composite/resampling.h"

namespace at::native {

namespace {

using torch_core::composite::Axis;
using Scales = std::initializer_list<std::optional<double>>;

enum class Mode { kNearest, kNearestExact, kLinear, kCubic };

// The per-dimension weights from `input_sizes` (spatial) to `output_sizes`.
std::vector<Tensor> weights_of(Mode mode, IntArrayRef input_sizes, IntArrayRef output_sizes, bool align_corners,
                               Scales scales, ScalarType dtype) {
  const ScalarType acc = torch_core::composite::accumulate_type(dtype);
  std::vector<Tensor> weights;
  auto scale = scales.begin();
  for (std::size_t d = 0; d < output_sizes.size(); ++d, ++scale) {
    const Axis axis{input_sizes[d], output_sizes[d]};
    switch (mode) {
      case Mode::kNearest:
      case Mode::kNearestExact:
        weights.push_back(torch_core::composite::nearest_weights(axis, *scale, mode == Mode::kNearestExact, acc));
        break;
      case Mode::kLinear:
        weights.push_back(torch_core::composite::linear_weights(axis, align_corners, *scale, acc));
        break;
      case Mode::kCubic:
        weights.push_back(torch_core::composite::cubic_weights(axis, align_corners, *scale, acc));
        break;
    }
  }
  return weights;
}

IntArrayRef spatial(IntArrayRef sizes, IntArrayRef output_size) { return sizes.slice(sizes.size() - output_size.size()); }

void nearest_forward(const Tensor& out, const Tensor& input, IntArrayRef output_size, Scales scales, bool exact,
                     const char* kernel_name) {
  torch_core::composite::check_floating(input.scalar_type(), kernel_name, /*allow_byte=*/true);
  std::vector<Tensor> indices;
  auto scale = scales.begin();
  const IntArrayRef input_sizes = spatial(input.sizes(), output_size);
  for (std::size_t d = 0; d < output_size.size(); ++d, ++scale) {
    indices.push_back(torch_core::composite::nearest_indices({input_sizes[d], output_size[d]}, *scale, exact));
  }
  torch_core::composite::select_into(out, input, indices);
}

void interpolate_forward(const Tensor& out, const Tensor& input, IntArrayRef output_size, Mode mode,
                         bool align_corners, Scales scales, const char* kernel_name) {
  torch_core::composite::check_floating(input.scalar_type(), kernel_name);
  torch_core::composite::resample_into(
      out, input,
      weights_of(mode, spatial(input.sizes(), output_size), output_size, align_corners, scales, input.scalar_type()));
}

void backward(const Tensor& grad_input, const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size,
              Mode mode, bool align_corners, Scales scales, const char* kernel_name) {
  torch_core::composite::check_floating(grad_output.scalar_type(), kernel_name);
  torch_core::composite::resample_backward_into(
      grad_input, grad_output,
      weights_of(mode, spatial(input_size, output_size), output_size, align_corners, scales,
                 grad_output.scalar_type()));
}

}  // namespace

TORCH_IMPL_FUNC(upsample_nearest1d_out_cuda)
(const Tensor& input, IntArrayRef output_size, std::optional<double> scales, const Tensor& out) {
  nearest_forward(out, input, output_size, {scales}, false, "upsample_nearest1d_out_frame");
}
TORCH_IMPL_FUNC(_upsample_nearest_exact1d_out_cuda)
(const Tensor& input, IntArrayRef output_size, std::optional<double> scales, const Tensor& out) {
  nearest_forward(out, input, output_size, {scales}, true, "upsample_nearest1d_out_frame");
}
TORCH_IMPL_FUNC(upsample_nearest2d_out_cuda)
(const Tensor& input, IntArrayRef output_size, std::optional<double> scales_h, std::optional<double> scales_w,
 const Tensor& out) {
  nearest_forward(out, input, output_size, {scales_h, scales_w}, false, "upsample_nearest2d_out_frame");
}
TORCH_IMPL_FUNC(_upsample_nearest_exact2d_out_cuda)
(const Tensor& input, IntArrayRef output_size, std::optional<double> scales_h, std::optional<double> scales_w,
 const Tensor& out) {
  nearest_forward(out, input, output_size, {scales_h, scales_w}, true, "upsample_nearest2d_out_frame");
}
TORCH_IMPL_FUNC(upsample_nearest3d_out_cuda)
(const Tensor& input, IntArrayRef output_size, std::optional<double> scales_d, std::optional<double> scales_h,
 std::optional<double> scales_w, const Tensor& out) {
  nearest_forward(out, input, output_size, {scales_d, scales_h, scales_w}, false, "upsample_nearest3d_out_frame");
}
TORCH_IMPL_FUNC(_upsample_nearest_exact3d_out_cuda)
(const Tensor& input, IntArrayRef output_size, std::optional<double> scales_d, std::optional<double> scales_h,
 std::optional<double> scales_w, const Tensor& out) {
  nearest_forward(out, input, output_size, {scales_d, scales_h, scales_w}, true, "upsample_nearest3d_out_frame");
}

TORCH_IMPL_FUNC(upsample_nearest1d_backward_out_cuda)
(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size, std::optional<double> scales,
 const Tensor& grad_input) {
  backward(grad_input, grad_output, output_size, input_size, Mode::kNearest, false, {scales},
           "upsample_nearest1d_backward_out_frame");
}
TORCH_IMPL_FUNC(_upsample_nearest_exact1d_backward_out_cuda)
(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size, std::optional<double> scales,
 const Tensor& grad_input) {
  backward(grad_input, grad_output, output_size, input_size, Mode::kNearestExact, false, {scales},
           "upsample_nearest1d_backward_out_frame");
}
TORCH_IMPL_FUNC(upsample_nearest2d_backward_out_cuda)
(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size, std::optional<double> scales_h,
 std::optional<double> scales_w, const Tensor& grad_input) {
  backward(grad_input, grad_output, output_size, input_size, Mode::kNearest, false, {scales_h, scales_w},
           "upsample_nearest2d_backward_out_frame");
}
TORCH_IMPL_FUNC(_upsample_nearest_exact2d_backward_out_cuda)
(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size, std::optional<double> scales_h,
 std::optional<double> scales_w, const Tensor& grad_input) {
  backward(grad_input, grad_output, output_size, input_size, Mode::kNearestExact, false, {scales_h, scales_w},
           "upsample_nearest2d_backward_out_frame");
}
TORCH_IMPL_FUNC(upsample_nearest3d_backward_out_cuda)
(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size, std::optional<double> scales_d,
 std::optional<double> scales_h, std::optional<double> scales_w, const Tensor& grad_input) {
  backward(grad_input, grad_output, output_size, input_size, Mode::kNearest, false, {scales_d, scales_h, scales_w},
           "upsample_nearest3d_backward_out_frame");
}
TORCH_IMPL_FUNC(_upsample_nearest_exact3d_backward_out_cuda)
(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size, std::optional<double> scales_d,
 std::optional<double> scales_h, std::optional<double> scales_w, const Tensor& grad_input) {
  backward(grad_input, grad_output, output_size, input_size, Mode::kNearestExact, false,
           {scales_d, scales_h, scales_w}, "upsample_nearest3d_backward_out_frame");
}

TORCH_IMPL_FUNC(upsample_linear1d_out_cuda)
(const Tensor& input, IntArrayRef output_size, bool align_corners, std::optional<double> scales, const Tensor& out) {
  interpolate_forward(out, input, output_size, Mode::kLinear, align_corners, {scales}, "upsample_linear1d_out_frame");
}
TORCH_IMPL_FUNC(upsample_bilinear2d_out_cuda)
(const Tensor& input, IntArrayRef output_size, bool align_corners, std::optional<double> scales_h,
 std::optional<double> scales_w, const Tensor& out) {
  interpolate_forward(out, input, output_size, Mode::kLinear, align_corners, {scales_h, scales_w},
                      "upsample_bilinear2d_out_frame");
}
TORCH_IMPL_FUNC(upsample_bicubic2d_out_cuda)
(const Tensor& input, IntArrayRef output_size, bool align_corners, std::optional<double> scales_h,
 std::optional<double> scales_w, const Tensor& out) {
  interpolate_forward(out, input, output_size, Mode::kCubic, align_corners, {scales_h, scales_w},
                      "upsample_bicubic2d_out_frame");
}
TORCH_IMPL_FUNC(upsample_trilinear3d_out_cuda)
(const Tensor& input, IntArrayRef output_size, bool align_corners, std::optional<double> scales_d,
 std::optional<double> scales_h, std::optional<double> scales_w, const Tensor& out) {
  interpolate_forward(out, input, output_size, Mode::kLinear, align_corners, {scales_d, scales_h, scales_w},
                      "upsample_trilinear3d_out_frame");
}

TORCH_IMPL_FUNC(upsample_linear1d_backward_out_cuda)
(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size, bool align_corners,
 std::optional<double> scales, const Tensor& grad_input) {
  backward(grad_input, grad_output, output_size, input_size, Mode::kLinear, align_corners, {scales},
           "upsample_linear1d_out_frame_backward");
}
TORCH_IMPL_FUNC(upsample_bilinear2d_backward_out_cuda)
(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size, bool align_corners,
 std::optional<double> scales_h, std::optional<double> scales_w, const Tensor& grad_input) {
  backward(grad_input, grad_output, output_size, input_size, Mode::kLinear, align_corners, {scales_h, scales_w},
           "upsample_bilinear2d_backward_out_frame");
}
TORCH_IMPL_FUNC(upsample_bicubic2d_backward_out_cuda)
(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size, bool align_corners,
 std::optional<double> scales_h, std::optional<double> scales_w, const Tensor& grad_input) {
  backward(grad_input, grad_output, output_size, input_size, Mode::kCubic, align_corners, {scales_h, scales_w},
           "upsample_bicubic2d_backward_out_frame");
}
TORCH_IMPL_FUNC(upsample_trilinear3d_backward_out_cuda)
(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size, bool align_corners,
 std::optional<double> scales_d, std::optional<double> scales_h, std::optional<double> scales_w,
 const Tensor& grad_input) {
  backward(grad_input, grad_output, output_size, input_size, Mode::kLinear, align_corners,
           {scales_d, scales_h, scales_w}, "upsample_trilinear3d_backward_out_frame");
}

}  // namespace at::native
