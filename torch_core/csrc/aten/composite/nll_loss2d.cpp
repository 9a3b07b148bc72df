// nll_loss2d forward and backward (cross entropy over a spatial target) on any torch_core
// backend: stock's CUDA kernels nll_loss2d_forward_cuda and nll_loss2d_backward_cuda as
// nll_loss over the (N * H * W, C) rows, with stock's shape checks and messages.
#include <tuple>

#include <ATen/core/Reduction.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/nll_loss2d_backward_native.h>
#include <ATen/ops/nll_loss2d_forward_native.h>
#include <ATen/ops/nll_loss_backward.h>
#include <ATen/ops/nll_loss_forward.h>
#include <c10/util/Exception.h>

namespace at::native {

namespace {

// Stock's check_inputs_nll_loss2d.
void check_inputs(const Tensor& input, const Tensor& target, const Tensor& weight) {
  TORCH_CHECK(target.dim() == 3, "only batches of spatial targets supported (3D tensors) but got targets of dimension: ",
              target.dim());
  TORCH_CHECK(input.dim() == 4, "only batches of spatial inputs supported (4D tensors), but got input of dimension: ",
              input.dim());
  TORCH_CHECK(!weight.defined() || weight.numel() == input.size(1),
              "weight tensor should be defined either for all or no classes");
  TORCH_CHECK(input.size(0) == target.size(0) && input.size(2) == target.size(1) && input.size(3) == target.size(2),
              "size mismatch (got input: ", input.sizes(), " , target: ", target.sizes());
}

// (N, C, H, W) as (N * H * W, C) rows, one per target element.
Tensor as_rows(const Tensor& t) { return t.movedim(1, -1).reshape({-1, t.size(1)}); }

}  // namespace

std::tuple<Tensor&, Tensor&> nll_loss2d_forward_out_cuda(const Tensor& self, const Tensor& target,
                                                         const std::optional<Tensor>& weight, int64_t reduction,
                                                         int64_t ignore_index, Tensor& output,
                                                         Tensor& total_weight) {
  const Tensor weight_or_undefined = weight.value_or(Tensor());
  check_inputs(self, target, weight_or_undefined);
  auto [losses, weight_sum] =
      at::nll_loss_forward(as_rows(self), target.reshape({-1}), weight_or_undefined, reduction, ignore_index);
  output.resize_(reduction == at::Reduction::None ? target.sizes() : IntArrayRef{});
  output.copy_(reduction == at::Reduction::None ? losses.view(target.sizes()) : losses);
  total_weight.resize_({});
  total_weight.copy_(weight_sum);
  return std::forward_as_tuple(output, total_weight);
}

std::tuple<Tensor, Tensor> nll_loss2d_forward_cuda(const Tensor& self, const Tensor& target,
                                                   const std::optional<Tensor>& weight, int64_t reduction,
                                                   int64_t ignore_index) {
  Tensor output = at::empty({0}, self.options());
  Tensor total_weight = at::empty({0}, self.options());
  nll_loss2d_forward_out_cuda(self, target, weight, reduction, ignore_index, output, total_weight);
  return std::make_tuple(output, total_weight);
}

Tensor& nll_loss2d_backward_out_cuda(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                     const std::optional<Tensor>& weight, int64_t reduction, int64_t ignore_index,
                                     const Tensor& total_weight, Tensor& grad_input) {
  const Tensor weight_or_undefined = weight.value_or(Tensor());
  check_inputs(self, target, weight_or_undefined);
  const Tensor grad = reduction == at::Reduction::None ? grad_output.reshape({-1}) : grad_output;
  const Tensor rows = at::nll_loss_backward(grad, as_rows(self), target.reshape({-1}), weight_or_undefined, reduction,
                                            ignore_index, total_weight);
  // The rows back to (N, H, W, C), then C to dimension 1.
  const Tensor spatial = rows.view({self.size(0), self.size(2), self.size(3), self.size(1)}).movedim(-1, 1);
  grad_input.resize_as_(self);
  grad_input.copy_(spatial);
  return grad_input;
}

Tensor nll_loss2d_backward_cuda(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                const std::optional<Tensor>& weight, int64_t reduction, int64_t ignore_index,
                                const Tensor& total_weight) {
  Tensor grad_input = at::empty_like(self);
  return nll_loss2d_backward_out_cuda(grad_output, self, target, weight, reduction, ignore_index, total_weight,
                                      grad_input);
}

}  // namespace at::native
