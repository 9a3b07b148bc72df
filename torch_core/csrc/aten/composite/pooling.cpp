// max_pool2d with indices, forward and backward, on any torch_core backend: stock's CUDA
// structured kernels (their meta functions check the arguments and size the outputs)
// defined over device operators. The forward pads the input with -inf (an integer type's
// lowest value; stride/ceil_mode padding included), views every window with as_strided
// and takes amax/argmax over it;
// the index of a window's maximum becomes the flat h * W + w position in its input plane,
// as stock's. The backward scatters the gradient to those positions (index_put_ with
// accumulate=True, so overlapping windows add).
#include <limits>
#include <optional>
#include <vector>

#include <ATen/Dispatch.h>
#include <ATen/TensorMeta.h>
#include <ATen/TensorOperators.h>
#include <ATen/ops/amax.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/argmax.h>
#include <ATen/ops/constant_pad_nd.h>
#include <ATen/ops/div.h>
#include <ATen/ops/index_put.h>
#include <ATen/ops/max_pool2d_with_indices_backward_native.h>
#include <ATen/ops/max_pool2d_with_indices_native.h>
#include <ATen/ops/remainder.h>
#include <ATen/ops/zeros.h>

namespace at::native {

namespace {

// kernel_size, stride, padding, dilation as the functional API allows them (one value for
// both dimensions, or two; an empty stride is the kernel size).
struct Window {
  int64_t kh, kw, sh, sw, ph, pw, dh, dw;
};

Window window_of(IntArrayRef kernel, IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation) {
  auto second = [](IntArrayRef v) { return v.size() == 1 ? v[0] : v[1]; };
  Window w{kernel[0], second(kernel), 0, 0, padding[0], second(padding), dilation[0], second(dilation)};
  w.sh = stride.empty() ? w.kh : stride[0];
  w.sw = stride.empty() ? w.kw : second(stride);
  return w;
}

// The padding value no element of `dtype` is below: -inf, or an integer type's lowest.
Scalar lowest_value(ScalarType dtype) {
  if (isFloatingType(dtype)) return -std::numeric_limits<double>::infinity();
  return AT_DISPATCH_INTEGRAL_TYPES(dtype, "max_pool2d", [] { return Scalar(std::numeric_limits<scalar_t>::lowest()); });
}

}  // namespace

TORCH_IMPL_FUNC(max_pool2d_with_indices_out_cuda)
(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool,
 const Tensor& out, const Tensor& indices) {
  if (out.numel() == 0) return;
  const Window w = window_of(kernel_size, stride, padding, dilation);
  const Tensor x = input.dim() == 3 ? input.unsqueeze(0) : input;
  const int64_t n = x.size(0), c = x.size(1), h = x.size(2), width = x.size(3);
  const int64_t oh = out.size(-2), ow = out.size(-1);
  // Enough padding of the lowest value for every window, ceil_mode's last partial ones
  // included.
  const int64_t need_h = (oh - 1) * w.sh + w.dh * (w.kh - 1) + 1;
  const int64_t need_w = (ow - 1) * w.sw + w.dw * (w.kw - 1) + 1;
  const Scalar lowest = lowest_value(x.scalar_type());
  const Tensor padded =
      at::constant_pad_nd(x, {w.pw, std::max<int64_t>(need_w - width - w.pw, w.pw), w.ph,
                              std::max<int64_t>(need_h - h - w.ph, w.ph)},
                          lowest)
          .contiguous();
  const int64_t ph = padded.size(2), pw = padded.size(3);
  const Tensor windows = padded.as_strided({n, c, oh, ow, w.kh, w.kw},
                                           {c * ph * pw, ph * pw, w.sh * pw, w.sw, w.dh * pw, w.dw})
                             .reshape({n, c, oh, ow, w.kh * w.kw});
  const Tensor which = at::argmax(windows, -1);
  const TensorOptions index_options = which.options().device(kCPU);
  // The window's origin in the input plane, and the chosen element's offset in it.
  const Tensor row0 = (at::arange(oh, index_options) * w.sh - w.ph).view({oh, 1}).to(which.device());
  const Tensor col0 = (at::arange(ow, index_options) * w.sw - w.pw).view({1, ow}).to(which.device());
  const Tensor row = row0 + at::div(which, w.kw, "floor") * w.dh;
  const Tensor col = col0 + at::remainder(which, w.kw) * w.dw;
  Tensor values = at::amax(windows, {-1});
  Tensor flat = row * width + col;
  if (input.dim() == 3) {
    values = values.squeeze(0);
    flat = flat.squeeze(0);
  }
  out.copy_(values);
  indices.copy_(flat);
}

TORCH_IMPL_FUNC(max_pool2d_with_indices_backward_out_cuda)
(const Tensor& grad_output, const Tensor& input, IntArrayRef, IntArrayRef, IntArrayRef, IntArrayRef, bool,
 const Tensor& indices, const Tensor& grad_input) {
  grad_input.zero_();
  if (grad_output.numel() == 0) return;
  const int64_t planes = input.numel() / (input.size(-2) * input.size(-1));
  const int64_t plane_size = input.size(-2) * input.size(-1);
  const Tensor idx = indices.reshape({planes, -1});
  const Tensor plane_ids =
      at::arange(planes, idx.options().device(kCPU)).view({planes, 1}).to(idx.device()).expand_as(idx);
  const Tensor zeros = at::zeros({planes, plane_size}, grad_input.options().memory_format(MemoryFormat::Contiguous));
  const Tensor grad = at::index_put(zeros, {std::optional<Tensor>(plane_ids), std::optional<Tensor>(idx)},
                                    grad_output.reshape({planes, -1}), /*accumulate=*/true);
  grad_input.copy_(grad.view(input.sizes()));
}

}  // namespace at::native
