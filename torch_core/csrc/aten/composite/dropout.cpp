// Dropout on any torch_core backend: stock's CUDA kernels native_dropout_cuda and
// native_dropout_backward_cuda. The mask is bernoulli_(1 - p) from the device's Philox
// generator (the random stubs); output and gradient are x * mask * scale in one kernel.
#include <optional>
#include <tuple>

#include <ATen/TensorIterator.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/native_dropout_backward_native.h>
#include <ATen/ops/native_dropout_native.h>
#include <ATen/ops/ones_like.h>
#include <ATen/ops/zeros_like.h>

#include "torch_core/csrc/aten/engine/stub_kernels.h"

namespace at::native {

namespace {

Tensor masked_scale(const Tensor& x, const Tensor& mask, double scale) {
  Tensor out = at::empty_like(x, x.suggest_memory_format());
  auto iter = TensorIteratorConfig()
                  .add_output(out)
                  .add_const_input(x)
                  .add_const_input(mask)
                  .check_all_same_dtype(false)
                  .build();
  torch_core::engine::run_elementwise(iter, {torch_core::engine::ElementwiseOp::kMaskedScale, x.scalar_type(), scale});
  return out;
}

}  // namespace

std::tuple<Tensor, Tensor> native_dropout_cuda(const Tensor& self, double p, std::optional<bool> train) {
  const auto bool_options = self.options().dtype(kBool);
  if (train.has_value() && !train.value()) {
    return {self.clone(), at::ones_like(self, bool_options)};
  }
  if (p == 1) {
    return {at::zeros_like(self), at::zeros_like(self, bool_options)};
  }
  const double p1m = 1. - p;
  Tensor mask = at::empty_like(self, bool_options);
  mask.bernoulli_(p1m);
  return {masked_scale(self, mask, 1. / p1m), mask};
}

Tensor native_dropout_backward_cuda(const Tensor& grad_output, const Tensor& mask, double scale) {
  TORCH_CHECK(mask.scalar_type() == kBool, "Mask should be Bool Scalar Type", mask.scalar_type());
  return masked_scale(grad_output, mask, scale);
}

}  // namespace at::native
