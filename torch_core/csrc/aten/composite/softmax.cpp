// softmax and log_softmax, forward and backward, on any torch_core backend: stock's CUDA
// structured kernels (their meta functions check dims and dtypes) defined over operators
// the kernel engine runs (amax, sub, exp, sum, div, log, mul). Half and BFloat16 compute in
// float; a row of -inf gives NaN, as on stock CUDA.
#include <ATen/TensorOperators.h>
#include <ATen/TensorMeta.h>
#include <ATen/ops/_log_softmax_backward_data_native.h>
#include <ATen/ops/_log_softmax_native.h>
#include <ATen/ops/_softmax_backward_data_native.h>
#include <ATen/ops/_softmax_native.h>
#include <ATen/ops/amax.h>
#include <ATen/ops/exp.h>
#include <ATen/ops/log.h>
#include <ATen/ops/sum.h>
#include <c10/core/WrapDimMinimal.h>

#include "torch_core/csrc/aten/composite/opmath.h"

namespace at::native {

namespace {

using torch_core::composite::opmath;

// x - max(x) along dim, in x's opmath dtype.
Tensor shifted(const Tensor& self, int64_t dim) {
  const Tensor x = opmath(self);
  return x - at::amax(x, {dim}, /*keepdim=*/true);
}

}  // namespace

TORCH_IMPL_FUNC(softmax_cuda_out)(const Tensor& self, int64_t dim, bool, const Tensor& out) {
  if (self.numel() == 0) return;
  const Tensor e = at::exp(shifted(self, c10::maybe_wrap_dim(dim, self.dim())));
  out.copy_(e / at::sum(e, {c10::maybe_wrap_dim(dim, self.dim())}, /*keepdim=*/true));
}

TORCH_IMPL_FUNC(log_softmax_cuda_out)(const Tensor& self, int64_t dim, bool, const Tensor& out) {
  if (self.numel() == 0) return;
  const int64_t d = c10::maybe_wrap_dim(dim, self.dim());
  const Tensor s = shifted(self, d);
  out.copy_(s - at::log(at::sum(at::exp(s), {d}, /*keepdim=*/true)));
}

TORCH_IMPL_FUNC(softmax_backward_cuda_out)
(const Tensor& grad_output, const Tensor& output, int64_t dim, ScalarType, const Tensor& grad_input) {
  if (output.numel() == 0) return;
  const int64_t d = c10::maybe_wrap_dim(dim, output.dim());
  const Tensor g = opmath(grad_output), y = opmath(output);
  grad_input.copy_(y * (g - at::sum(g * y, {d}, /*keepdim=*/true)));
}

TORCH_IMPL_FUNC(log_softmax_backward_cuda_out)
(const Tensor& grad_output, const Tensor& output, int64_t dim, ScalarType, const Tensor& out) {
  if (output.numel() == 0) return;
  const int64_t d = c10::maybe_wrap_dim(dim, output.dim());
  const Tensor g = opmath(grad_output);
  out.copy_(g - at::exp(opmath(output)) * at::sum(g, {d}, /*keepdim=*/true));
}

}  // namespace at::native
