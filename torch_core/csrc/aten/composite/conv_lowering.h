// Convolutions and their transposes, forward and backward, as matrix products over column
// buffers (im2col), the lowering stock's CUDA kernels use without cuDNN (slow_conv2d,
// slow_conv_dilated, slow_conv_transpose). Every step is an operator the device runs: a
// strided copy gathers the windows, the device's bmm multiplies, strided in-place adds
// scatter windows back, so a backend with a kernel engine and a gemm computes them on the
// device. Any number of spatial dimensions; `groups` splits the channels.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

#include <ATen/core/Tensor.h>

namespace torch_core::composite {

// What a convolution's kernels take besides its tensors (one value per spatial dimension).
struct ConvGeometry {
  std::vector<int64_t> kernel_size;
  std::vector<int64_t> stride;
  std::vector<int64_t> padding;
  std::vector<int64_t> dilation;
  int64_t groups = 1;
};

// The windows of wide [N, C, *W], zero-padded by geometry.padding: a strided view
// [C, *K, N, *Q] (element k of the window at position q along a dimension sits at
// q * stride + k * dilation of the padded tensor). `positions` is Q, at most the count of
// whole windows.
at::Tensor window_view(const at::Tensor& wide, at::IntArrayRef positions, const ConvGeometry& geometry);

// The adjoint of window_view: windows [C, *K, N, *Q] (any strides) summed into a new tensor
// of wide_sizes [N, C, *W] (a view of a padded buffer when geometry pads).
at::Tensor sum_windows(const at::Tensor& windows, at::IntArrayRef wide_sizes, const ConvGeometry& geometry);

// input [N, C, *S], weight [O, C / groups, *K] -> [N, O, *Q] (contiguous).
at::Tensor conv_forward(const at::Tensor& input, const at::Tensor& weight, const std::optional<at::Tensor>& bias,
                        const ConvGeometry& geometry);

// The gradients of conv_forward that output_mask asks for (undefined otherwise).
std::tuple<at::Tensor, at::Tensor, at::Tensor> conv_backward(const at::Tensor& grad_output, const at::Tensor& input,
                                                             const at::Tensor& weight, const ConvGeometry& geometry,
                                                             std::array<bool, 3> output_mask);

// input [N, C, *S], weight [C, O / groups, *K] -> [N, O, *Q] with
// Q = (S - 1) * stride - 2 * padding + dilation * (K - 1) + output_padding + 1.
at::Tensor conv_transpose_forward(const at::Tensor& input, const at::Tensor& weight,
                                  const std::optional<at::Tensor>& bias, const ConvGeometry& geometry,
                                  at::IntArrayRef output_padding);

std::tuple<at::Tensor, at::Tensor, at::Tensor> conv_transpose_backward(const at::Tensor& grad_output,
                                                                       const at::Tensor& input,
                                                                       const at::Tensor& weight,
                                                                       const ConvGeometry& geometry,
                                                                       std::array<bool, 3> output_mask);

}  // namespace torch_core::composite
