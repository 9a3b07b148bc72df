// binary_cross_entropy forward and backward on any torch_core backend: stock's CUDA
// kernels (Loss.cu) as elementwise operators: log terms clamped at -100, the gradient's
// denominator at 1e-12, the weight applied before the reduction. An input outside [0, 1]
// raises stock's CPU message (stock's CUDA kernel stops on a device-side assert instead).
#include <ATen/TensorOperators.h>
#include <ATen/core/Reduction.h>
#include <ATen/ops/all.h>
#include <ATen/ops/binary_cross_entropy_backward_native.h>
#include <ATen/ops/binary_cross_entropy_native.h>
#include <ATen/ops/clamp_min.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/log.h>
#include <ATen/ops/log1p.h>
#include <ATen/ops/logical_and.h>
#include <c10/util/Exception.h>

namespace at::native {

namespace {

constexpr double kLogFloor = -100.0;  // stock's clamp of log(x) and log(1 - x)
constexpr double kEpsilon = 1e-12;    // stock's EPSILON for the gradient's denominator

void check_probabilities(const Tensor& input) {
  TORCH_CHECK(at::logical_and(input >= 0, input <= 1).all().item<bool>(),
              "all elements of input should be between 0 and 1");
}

}  // namespace

Tensor& binary_cross_entropy_out_cuda(const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight,
                                      int64_t reduction, Tensor& loss) {
  check_probabilities(input);
  Tensor losses = (target - 1) * at::clamp_min(at::log1p(-input), kLogFloor) -
                  target * at::clamp_min(at::log(input), kLogFloor);
  if (weight.has_value() && weight->defined()) losses = losses * *weight;
  if (reduction == at::Reduction::Mean) {
    losses = losses.mean();
  } else if (reduction == at::Reduction::Sum) {
    losses = losses.sum();
  }
  loss.resize_as_(losses);
  loss.copy_(losses);
  return loss;
}

Tensor binary_cross_entropy_cuda(const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight,
                                 int64_t reduction) {
  Tensor loss = at::empty_like(input);
  return binary_cross_entropy_out_cuda(input, target, weight, reduction, loss);
}

Tensor& binary_cross_entropy_backward_out_cuda(const Tensor& grad, const Tensor& input, const Tensor& target,
                                               const std::optional<Tensor>& weight, int64_t reduction,
                                               Tensor& grad_input) {
  Tensor result = grad.expand_as(input) * (input - target) / at::clamp_min((1 - input) * input, kEpsilon);
  if (weight.has_value() && weight->defined()) result = result * *weight;
  if (reduction == at::Reduction::Mean) result = result / input.numel();
  grad_input.resize_as_(input);
  grad_input.copy_(result);
  return grad_input;
}

Tensor binary_cross_entropy_backward_cuda(const Tensor& grad, const Tensor& input, const Tensor& target,
                                          const std::optional<Tensor>& weight, int64_t reduction) {
  Tensor grad_input = at::empty_like(input);
  return binary_cross_entropy_backward_out_cuda(grad, input, target, weight, reduction, grad_input);
}

}  // namespace at::native
