// Convolution on the device, over conv_lowering.h. On the CUDA key, as stock's CUDA build
// runs it with cuDNN disabled: stock's `convolution`/`convolution_backward` (checks,
// padding modes, 1-d as 2-d, backend choice) pick slow_conv2d, slow_conv_dilated2d/3d,
// slow_conv_transpose2d/3d or the depthwise kernels, whose CUDA kernels are defined here,
// and call the backward DispatchStubs that register_convolution fills. On other keys
// (PrivateUse1) they end in convolution_overrideable and its backward, registered here.
#include <array>
#include <tuple>

#include <ATen/TensorMeta.h>
#include <ATen/native/ConvUtils.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/_conv_depthwise2d_native.h>
#include <ATen/ops/_slow_conv2d_backward_native.h>
#include <ATen/ops/_slow_conv2d_forward_native.h>
#include <ATen/ops/conv_depthwise3d_native.h>
#include <ATen/ops/slow_conv_dilated2d_native.h>
#include <ATen/ops/slow_conv_dilated3d_native.h>
#include <ATen/ops/slow_conv_transpose2d_native.h>
#include <ATen/ops/slow_conv_transpose3d_native.h>

#include "torch_core/csrc/aten/composite/conv_lowering.h"
#include "torch_core/csrc/aten/composite/convolution_registration.h"
#include "torch_core/csrc/aten/composite/resampling.h"
#include "torch_core/csrc/aten/engine/stub_slot.h"

namespace at::native {

namespace {

using torch_core::composite::check_floating;
using torch_core::composite::ConvGeometry;

// A list argument as one value per spatial dimension (a single value serves them all).
std::vector<int64_t> per_dim(IntArrayRef values, size_t dims) {
  if (values.size() == 1) return std::vector<int64_t>(dims, values[0]);
  TORCH_CHECK(values.size() == dims, "expected ", dims, " values, got ", values);
  return values.vec();
}

ConvGeometry geometry(IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                      int64_t groups) {
  const size_t dims = kernel_size.size();
  return {kernel_size.vec(), per_dim(stride, dims), per_dim(padding, dims), per_dim(dilation, dims), groups};
}

// Stock's depthwise kernels: one group per input channel.
int64_t depthwise_groups(const Tensor& input) { return input.size(1); }

// What an out= variant does with a result computed into a fresh tensor.
Tensor& write_out(Tensor& out, const Tensor& result) {
  resize_output(out, result.sizes());
  return out.copy_(result);
}

std::tuple<Tensor, Tensor, Tensor> dilated_backward(const Tensor& grad_output, const Tensor& input,
                                                    const Tensor& weight, IntArrayRef kernel_size, IntArrayRef stride,
                                                    IntArrayRef padding, IntArrayRef dilation,
                                                    std::array<bool, 3> output_mask) {
  check_floating(input.scalar_type(), "slow_conv_dilated_all_cuda_template");
  return torch_core::composite::conv_backward(grad_output, input, weight.contiguous(),
                                              geometry(kernel_size, stride, padding, dilation, 1), output_mask);
}

std::tuple<Tensor, Tensor, Tensor> depthwise3d_backward(const Tensor& grad_output, const Tensor& input,
                                                        const Tensor& weight, IntArrayRef kernel_size,
                                                        IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                                        std::array<bool, 3> output_mask) {
  check_floating(input.scalar_type(), "conv_depthwise3d_backward_cuda");
  return torch_core::composite::conv_backward(
      grad_output, input, weight.contiguous(),
      geometry(kernel_size, stride, padding, dilation, depthwise_groups(input)), output_mask);
}

std::tuple<Tensor, Tensor> depthwise2d_backward(const Tensor& grad_output, const Tensor& input, const Tensor& weight,
                                                IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                                                IntArrayRef dilation, std::array<bool, 2> output_mask) {
  check_floating(input.scalar_type(), "conv_depthwise2d_backward_cuda");
  auto [grad_input, grad_weight, grad_bias] = torch_core::composite::conv_backward(
      grad_output, input, weight.contiguous(),
      geometry(kernel_size, stride, padding, dilation, depthwise_groups(input)),
      {output_mask[0], output_mask[1], false});
  return {grad_input, grad_weight};
}

std::tuple<Tensor, Tensor, Tensor> transpose_backward(const Tensor& grad_output, const Tensor& input,
                                                      const Tensor& weight, IntArrayRef kernel_size,
                                                      IntArrayRef stride, IntArrayRef padding,
                                                      IntArrayRef /*output_padding*/, IntArrayRef dilation,
                                                      std::array<bool, 3> output_mask) {
  check_floating(input.scalar_type(), "slow_conv_transpose_backward_cuda");
  return torch_core::composite::conv_transpose_backward(
      grad_output, input, weight.contiguous(), geometry(kernel_size, stride, padding, dilation, 1), output_mask);
}

Tensor convolve(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, const ConvGeometry& g,
                const char* kernel_name) {
  check_floating(input.scalar_type(), kernel_name);
  return torch_core::composite::conv_forward(input, weight.contiguous(), bias, g);
}

Tensor convolve_transposed(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                           IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                           IntArrayRef output_padding, IntArrayRef dilation, const char* kernel_name) {
  check_floating(input.scalar_type(), kernel_name);
  const ConvGeometry g = geometry(kernel_size, stride, padding, dilation, 1);
  return torch_core::composite::conv_transpose_forward(input, weight.contiguous(), bias, g,
                                                       per_dim(output_padding, kernel_size.size()));
}

}  // namespace

Tensor slow_conv2d_forward_cuda(const Tensor& self, const Tensor& weight, IntArrayRef kernel_size,
                                const std::optional<Tensor>& bias, IntArrayRef stride, IntArrayRef padding) {
  return convolve(self, weight, bias, geometry(kernel_size, stride, padding, {1}, 1), "slow_conv2d_cuda");
}

Tensor& slow_conv2d_forward_out_cuda(const Tensor& self, const Tensor& weight, IntArrayRef kernel_size,
                                     const std::optional<Tensor>& bias, IntArrayRef stride, IntArrayRef padding,
                                     Tensor& output) {
  return write_out(output, slow_conv2d_forward_cuda(self, weight, kernel_size, bias, stride, padding));
}

std::tuple<Tensor, Tensor, Tensor> slow_conv2d_backward_cuda(const Tensor& grad_output, const Tensor& self,
                                                             const Tensor& weight, IntArrayRef kernel_size,
                                                             IntArrayRef stride, IntArrayRef padding,
                                                             std::array<bool, 3> output_mask) {
  check_floating(self.scalar_type(), "slow_conv2d_backward_cuda");
  return torch_core::composite::conv_backward(grad_output, self, weight.contiguous(),
                                              geometry(kernel_size, stride, padding, {1}, 1), output_mask);
}

std::tuple<Tensor&, Tensor&, Tensor&> slow_conv2d_backward_out_cuda(const Tensor& grad_output, const Tensor& self,
                                                                    const Tensor& weight, IntArrayRef kernel_size,
                                                                    IntArrayRef stride, IntArrayRef padding,
                                                                    Tensor& grad_input, Tensor& grad_weight,
                                                                    Tensor& grad_bias) {
  const std::array<bool, 3> mask{grad_input.defined(), grad_weight.defined(), grad_bias.defined()};
  auto [input_result, weight_result, bias_result] =
      slow_conv2d_backward_cuda(grad_output, self, weight, kernel_size, stride, padding, mask);
  if (mask[0]) write_out(grad_input, input_result);
  if (mask[1]) write_out(grad_weight, weight_result);
  if (mask[2]) write_out(grad_bias, bias_result);
  return {grad_input, grad_weight, grad_bias};
}

Tensor slow_conv_dilated2d_cuda(const Tensor& self, const Tensor& weight, IntArrayRef kernel_size,
                                const std::optional<Tensor>& bias, IntArrayRef stride, IntArrayRef padding,
                                IntArrayRef dilation) {
  return convolve(self, weight, bias, geometry(kernel_size, stride, padding, dilation, 1), "slow_conv_dilated2d_cuda");
}

Tensor slow_conv_dilated3d_cuda(const Tensor& self, const Tensor& weight, IntArrayRef kernel_size,
                                const std::optional<Tensor>& bias, IntArrayRef stride, IntArrayRef padding,
                                IntArrayRef dilation) {
  return convolve(self, weight, bias, geometry(kernel_size, stride, padding, dilation, 1), "slow_conv_dilated3d_cuda");
}

Tensor conv_depthwise2d_cuda(const Tensor& self, const Tensor& weight, IntArrayRef kernel_size,
                             const std::optional<Tensor>& bias, IntArrayRef stride, IntArrayRef padding,
                             IntArrayRef dilation) {
  return convolve(self, weight, bias, geometry(kernel_size, stride, padding, dilation, depthwise_groups(self)),
                  "conv_depthwise2d_forward_cuda");
}

Tensor& conv_depthwise2d_cuda_out(const Tensor& self, const Tensor& weight, IntArrayRef kernel_size,
                                  const std::optional<Tensor>& bias, IntArrayRef stride, IntArrayRef padding,
                                  IntArrayRef dilation, Tensor& out) {
  return write_out(out, conv_depthwise2d_cuda(self, weight, kernel_size, bias, stride, padding, dilation));
}

Tensor conv_depthwise3d_cuda(const Tensor& self, const Tensor& weight, IntArrayRef kernel_size,
                             const std::optional<Tensor>& bias, IntArrayRef stride, IntArrayRef padding,
                             IntArrayRef dilation) {
  return convolve(self, weight, bias, geometry(kernel_size, stride, padding, dilation, depthwise_groups(self)),
                  "conv_depthwise3d");
}

TORCH_IMPL_FUNC(slow_conv_transpose2d_structured_cuda)
(const Tensor& self, const Tensor& weight, IntArrayRef kernel_size, OptionalTensorRef bias, IntArrayRef stride,
 IntArrayRef padding, IntArrayRef output_padding, IntArrayRef dilation, const Tensor& out) {
  const std::optional<Tensor> bias_tensor = bias.has_value() ? std::optional<Tensor>(*bias) : std::nullopt;
  out.copy_(convolve_transposed(self, weight, bias_tensor, kernel_size, stride, padding, output_padding, dilation,
                                "slow_conv_transpose2d_out_cuda"));
}

Tensor slow_conv_transpose3d_cuda(const Tensor& self, const Tensor& weight, IntArrayRef kernel_size,
                                  const std::optional<Tensor>& bias, IntArrayRef stride, IntArrayRef padding,
                                  IntArrayRef output_padding, IntArrayRef dilation) {
  return convolve_transposed(self, weight, bias, kernel_size, stride, padding, output_padding, dilation,
                             "slow_conv_transpose3d_out_cuda");
}

Tensor& slow_conv_transpose3d_out_cuda(const Tensor& self, const Tensor& weight, IntArrayRef kernel_size,
                                       const std::optional<Tensor>& bias, IntArrayRef stride, IntArrayRef padding,
                                       IntArrayRef output_padding, IntArrayRef dilation, Tensor& out) {
  return write_out(out, slow_conv_transpose3d_cuda(self, weight, kernel_size, bias, stride, padding, output_padding,
                                                   dilation));
}

}  // namespace at::native

namespace torch_core::composite {

namespace {

ConvGeometry overrideable_geometry(const at::Tensor& weight, at::IntArrayRef stride, at::IntArrayRef padding,
                                  at::IntArrayRef dilation, int64_t groups) {
  return at::native::geometry(weight.sizes().slice(2), stride, padding, dilation, groups);
}

// A PrivateUse1 device follows the CPU's dtypes: integers too, not bool or complex (which
// conv1d/2d/3d split into real convolutions before they get here).
void check_overrideable_dtype(at::ScalarType dtype, const char* kernel_name) {
  check_dtype_supported(at::isFloatingType(dtype) || at::isIntegralType(dtype, /*includeBool=*/false), dtype,
                        kernel_name);
}

// What stock's `convolution` calls on keys without an in-tree convolution (PrivateUse1).
at::Tensor convolution_overrideable(const at::Tensor& input, const at::Tensor& weight,
                                   const std::optional<at::Tensor>& bias, at::IntArrayRef stride,
                                   at::IntArrayRef padding, at::IntArrayRef dilation, bool transposed,
                                   at::IntArrayRef output_padding, int64_t groups) {
  check_overrideable_dtype(input.scalar_type(), "convolution_overrideable");
  const ConvGeometry g = overrideable_geometry(weight, stride, padding, dilation, groups);
  if (transposed) {
    const std::vector<int64_t> padding_out = at::native::per_dim(output_padding, g.kernel_size.size());
    return conv_transpose_forward(input, weight.contiguous(), bias, g, padding_out);
  }
  return conv_forward(input, weight.contiguous(), bias, g);
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> convolution_backward_overrideable(
    const at::Tensor& grad_output, const at::Tensor& input, const at::Tensor& weight, at::IntArrayRef stride,
    at::IntArrayRef padding, at::IntArrayRef dilation, bool transposed, at::IntArrayRef /*output_padding*/,
    int64_t groups, std::array<bool, 3> output_mask) {
  check_overrideable_dtype(input.scalar_type(), "convolution_backward_overrideable");
  const ConvGeometry g = overrideable_geometry(weight, stride, padding, dilation, groups);
  return transposed ? conv_transpose_backward(grad_output, input, weight.contiguous(), g, output_mask)
                    : conv_backward(grad_output, input, weight.contiguous(), g, output_mask);
}

}  // namespace

void register_convolution(torch::Library& m, c10::DeviceType device_type) {
  using engine::set_slot;
  set_slot(at::native::slow_conv_dilated2d_backward_stub, device_type, &at::native::dilated_backward);
  set_slot(at::native::slow_conv_dilated3d_backward_stub, device_type, &at::native::dilated_backward);
  set_slot(at::native::slow_conv_transpose2d_backward_stub, device_type, &at::native::transpose_backward);
  set_slot(at::native::slow_conv_transpose3d_backward_stub, device_type, &at::native::transpose_backward);
  set_slot(at::native::conv_depthwise2d_backward_stub, device_type, &at::native::depthwise2d_backward);
  set_slot(at::native::conv_depthwise3d_backward_stub, device_type, &at::native::depthwise3d_backward);
  if (device_type != c10::DeviceType::CUDA) {
    m.impl("convolution_overrideable", TORCH_FN(convolution_overrideable));
    m.impl("convolution_backward_overrideable", TORCH_FN(convolution_backward_overrideable));
  }
}

}  // namespace torch_core::composite
