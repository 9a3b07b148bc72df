// nll_loss forward and backward (cross entropy's second half) on any torch_core backend:
// stock's CUDA structured kernels (their meta functions check shapes and reductions)
// defined over operators the kernel engine runs. The target picks its class through a
// one-hot comparison with the class indices, so an ignored target or a -inf log
// probability elsewhere in the row contributes nothing. A target out of [0, C) that is not
// ignore_index raises stock's IndexError ("Target 7 is out of bounds.").
#include <ATen/TensorOperators.h>
#include <ATen/TensorMeta.h>
#include <ATen/core/Reduction.h>
#include <ATen/ops/any.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/nll_loss_backward_native.h>
#include <ATen/ops/nll_loss_forward_native.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/scalar_tensor.h>
#include <ATen/ops/sum.h>
#include <ATen/ops/where.h>
#include <c10/util/Exception.h>

#include "torch_core/csrc/aten/composite/opmath.h"

namespace at::native {

namespace {

using torch_core::composite::opmath;

// Per target element: whether it is counted, and its one-hot row over the C classes.
struct Selection {
  Tensor valid;   // target's shape, bool
  Tensor onehot;  // target's shape + [C], bool
};

Selection select_classes(const Tensor& self, const Tensor& target, int64_t ignore_index) {
  const int64_t classes = self.size(-1);
  const Tensor valid = target != ignore_index;
  const Tensor out_of_bounds = valid & ((target < 0) | (target >= classes));
  if (at::any(out_of_bounds).item<bool>()) {
    // The error path: find the first offending value on the host.
    const Tensor host = target.cpu().flatten();
    const Tensor bad = out_of_bounds.cpu().flatten();
    for (int64_t i = 0; i < host.numel(); ++i) {
      TORCH_CHECK_INDEX(!bad[i].item<bool>(), "Target ", host[i].item<int64_t>(), " is out of bounds.");
    }
  }
  // The class indices, made on the host and copied over (C int64s).
  const Tensor class_ids = at::arange(classes, target.options().device(kCPU)).to(target.device());
  return {valid, (target.unsqueeze(-1) == class_ids) & valid.unsqueeze(-1)};
}

// The weight of each target element's class (0 where it is ignored), in `like`'s dtype.
Tensor target_weights(const Selection& s, OptionalTensorRef weight, const Tensor& like) {
  const Tensor zero = at::scalar_tensor(0, like.options());
  const Tensor w = weight.has_value() && weight->defined() ? opmath(*weight) : at::ones({like.size(-1)}, like.options());
  return at::sum(at::where(s.onehot, w, zero), {-1});
}

}  // namespace

TORCH_IMPL_FUNC(nll_loss_forward_out_cuda)
(const Tensor& self, const Tensor& target, OptionalTensorRef weight, int64_t reduction, int64_t ignore_index,
 const Tensor& output, const Tensor& total_weight) {
  const Tensor x = opmath(self);
  const Selection s = select_classes(self, target, ignore_index);
  const Tensor w = target_weights(s, weight, x);
  const Tensor losses = -at::sum(at::where(s.onehot, x, at::scalar_tensor(0, x.options())), {-1}) * w;
  if (reduction == at::Reduction::None) {
    output.copy_(losses);
    total_weight.zero_();
    return;
  }
  const Tensor weight_sum = at::sum(w);
  total_weight.copy_(weight_sum);
  output.copy_(reduction == at::Reduction::Mean ? at::sum(losses) / weight_sum : at::sum(losses));
}

TORCH_IMPL_FUNC(nll_loss_backward_out_cuda)
(const Tensor& grad_output, const Tensor& self, const Tensor& target, OptionalTensorRef weight, int64_t reduction,
 int64_t ignore_index, const Tensor& total_weight, const Tensor& grad_input) {
  const Tensor x = opmath(self);
  const Selection s = select_classes(self, target, ignore_index);
  Tensor scale = opmath(grad_output);
  if (reduction == at::Reduction::Mean) scale = scale / opmath(total_weight);
  if (scale.dim() > 0) scale = scale.unsqueeze(-1);  // none: one gradient per target element
  const Tensor w = weight.has_value() && weight->defined() ? opmath(*weight) : at::ones({x.size(-1)}, x.options());
  grad_input.copy_(-at::where(s.onehot, w, at::scalar_tensor(0, x.options())) * scale);
}

}  // namespace at::native
