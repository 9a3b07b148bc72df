// gelu forward and backward and log_sigmoid's forward on any torch_core backend: stock's
// CUDA kernels, whose TensorIterator goes to the kernel engine as the stubs of a CUDA
// build would take it (the CPU kernels hard-code the CPU slot).
#include <tuple>

#include <ATen/TensorIterator.h>
#include <ATen/TensorMeta.h>
#include <ATen/native/Activation.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/gelu_backward_native.h>
#include <ATen/ops/gelu_native.h>
#include <ATen/ops/log_sigmoid_forward_native.h>

#include "torch_core/csrc/aten/engine/stub_kernels.h"

namespace at::native {

namespace {
using torch_core::engine::ElementwiseOp;
bool is_tanh(c10::string_view approximate) { return get_gelutype_enum(approximate) == GeluType::Tanh; }
}  // namespace

TORCH_IMPL_FUNC(gelu_out_cuda)(const Tensor&, c10::string_view approximate, const Tensor&) {
  const ElementwiseOp op = is_tanh(approximate) ? ElementwiseOp::kGeluTanh : ElementwiseOp::kGeluNone;
  torch_core::engine::run_elementwise(*this, {op, common_dtype()});
}

TORCH_IMPL_FUNC(gelu_backward_out_cuda)(const Tensor&, const Tensor&, c10::string_view approximate, const Tensor&) {
  const ElementwiseOp op = is_tanh(approximate) ? ElementwiseOp::kGeluBackwardTanh : ElementwiseOp::kGeluBackwardNone;
  torch_core::engine::run_elementwise(*this, {op, common_dtype()});
}

// The buffer is the CPU kernel's: CUDA leaves it empty.
std::tuple<Tensor&, Tensor&> log_sigmoid_forward_out_cuda(const Tensor& input, Tensor& result, Tensor& buffer) {
  auto iter = TensorIteratorConfig().add_output(result).add_const_input(input).build();
  torch_core::engine::run_elementwise(iter, {ElementwiseOp::kLogSigmoid, iter.common_dtype()});
  return std::forward_as_tuple(result, buffer);
}

std::tuple<Tensor, Tensor> log_sigmoid_forward_cuda(const Tensor& input) {
  Tensor result = at::empty_like(input);
  Tensor buffer = at::empty({0}, input.options());
  log_sigmoid_forward_out_cuda(input, result, buffer);
  return std::make_tuple(result, buffer);
}

}  // namespace at::native
