// gelu forward and backward on any torch_core backend: stock's CUDA structured kernels,
// whose TensorIterator (the structured class itself) goes to the kernel engine as the
// GeluKernel stubs of a CUDA build would take it (the CPU kernels hard-code the CPU slot).
#include <ATen/TensorMeta.h>
#include <ATen/native/Activation.h>
#include <ATen/ops/gelu_backward_native.h>
#include <ATen/ops/gelu_native.h>

#include "torch_core/aten/engine/stub_kernels.h"

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

}  // namespace at::native
