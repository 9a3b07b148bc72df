// im2col and col2im (F.unfold, F.fold) on any torch_core backend: stock's CUDA kernels,
// with stock's shape checks (ATen/native/im2col_shape_check.h), over conv_lowering.h's
// window view: a strided copy gathers the blocks, a sum of windows scatters them back.
#include <vector>

#include <ATen/native/Resize.h>
#include <ATen/native/im2col_shape_check.h>
#include <ATen/ops/col2im_native.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/im2col_native.h>

#include "torch_core/csrc/aten/composite/conv_lowering.h"
#include "torch_core/csrc/aten/composite/resampling.h"

namespace at::native {

namespace {

using torch_core::composite::ConvGeometry;

// Stock's CUDA kernels take floating, complex and bool tensors.
void check_dtype(ScalarType dtype, const char* kernel_name) {
  const bool supported = isFloatingType(dtype) || isComplexType(dtype) || dtype == kBool;
  torch_core::composite::check_dtype_supported(supported, dtype, kernel_name);
}

void check_pairs(IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding, IntArrayRef stride) {
  TORCH_CHECK(kernel_size.size() == 2, "It is expected kernel_size equals to 2, but got size ", kernel_size.size());
  TORCH_CHECK(dilation.size() == 2, "It is expected dilation equals to 2, but got size ", dilation.size());
  TORCH_CHECK(padding.size() == 2, "It is expected padding equals to 2, but got size ", padding.size());
  TORCH_CHECK(stride.size() == 2, "It is expected stride equals to 2, but got size ", stride.size());
}

ConvGeometry geometry(IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding, IntArrayRef stride) {
  return {kernel_size.vec(), stride.vec(), padding.vec(), dilation.vec(), 1};
}

// The number of blocks along each of the two dimensions of an image of `sizes`.
std::vector<int64_t> block_counts(IntArrayRef sizes, const ConvGeometry& g) {
  std::vector<int64_t> counts;
  for (size_t d = 0; d < 2; ++d) {
    counts.push_back(sliding_window_count(sizes[d], g.padding[d], g.dilation[d], g.kernel_size[d], g.stride[d]));
  }
  return counts;
}

}  // namespace

Tensor im2col_cuda(const Tensor& input, IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding,
                   IntArrayRef stride) {
  check_pairs(kernel_size, dilation, padding, stride);
  im2col_shape_check(input, Tensor(), kernel_size[0], kernel_size[1], dilation[0], dilation[1], padding[0],
                     padding[1], stride[0], stride[1]);
  check_dtype(input.scalar_type(), "im2col_out_cuda");
  const bool batched = input.dim() == 4;
  const Tensor images = batched ? input : input.unsqueeze(0);
  const ConvGeometry g = geometry(kernel_size, dilation, padding, stride);
  const std::vector<int64_t> blocks = block_counts(images.sizes().slice(2), g);
  const int64_t n = images.size(0), channels = images.size(1);
  Tensor columns = at::empty({n, channels * kernel_size[0] * kernel_size[1], blocks[0] * blocks[1]}, input.options());
  // window_view is [C, kH, kW, N, bH, bW]; the columns are [N, (C, kH, kW), (bH, bW)].
  columns.view({n, channels, kernel_size[0], kernel_size[1], blocks[0], blocks[1]})
      .copy_(torch_core::composite::window_view(images, blocks, g).permute({3, 0, 1, 2, 4, 5}));
  return batched ? columns : columns.squeeze(0);
}

Tensor& im2col_out_cuda(const Tensor& input, IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding,
                        IntArrayRef stride, Tensor& out) {
  const Tensor columns = im2col_cuda(input, kernel_size, dilation, padding, stride);
  resize_output(out, columns.sizes());
  return out.copy_(columns);
}

Tensor col2im_cuda(const Tensor& input, IntArrayRef output_size, IntArrayRef kernel_size, IntArrayRef dilation,
                   IntArrayRef padding, IntArrayRef stride) {
  TORCH_CHECK(output_size.size() == 2, "It is expected output_size equals to 2, but got size ", output_size.size());
  check_pairs(kernel_size, dilation, padding, stride);
  col2im_shape_check(input, Tensor(), output_size[0], output_size[1], kernel_size[0], kernel_size[1], dilation[0],
                     dilation[1], padding[0], padding[1], stride[0], stride[1]);
  check_dtype(input.scalar_type(), "col2im_out_cuda");
  const bool batched = input.dim() == 3;
  const Tensor columns = batched ? input : input.unsqueeze(0);
  const ConvGeometry g = geometry(kernel_size, dilation, padding, stride);
  const std::vector<int64_t> blocks = block_counts(output_size, g);
  const int64_t n = columns.size(0), channels = columns.size(1) / (kernel_size[0] * kernel_size[1]);
  const Tensor windows =
      columns.reshape({n, channels, kernel_size[0], kernel_size[1], blocks[0], blocks[1]}).permute({1, 2, 3, 0, 4, 5});
  const Tensor images =
      torch_core::composite::sum_windows(windows, {n, channels, output_size[0], output_size[1]}, g).contiguous();
  return batched ? images : images.squeeze(0);
}

Tensor& col2im_out_cuda(const Tensor& input, IntArrayRef output_size, IntArrayRef kernel_size, IntArrayRef dilation,
                        IntArrayRef padding, IntArrayRef stride, Tensor& out) {
  const Tensor images = col2im_cuda(input, output_size, kernel_size, dilation, padding, stride);
  resize_output(out, images.sizes());
  return out.copy_(images);
}

}  // namespace at::native
