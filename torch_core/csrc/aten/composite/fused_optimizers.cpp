// The fused optimizers on any torch_core backend: stock's CUDA kernels
// _fused_adam_kernel_cuda_, _fused_adamw_kernel_cuda_ and _fused_sgd_kernel_cuda_, with
// stock's update formulas (FusedAdamKernel.cu, FusedSgdKernel.cu) written as engine
// operators per parameter, in the opmath type. Nothing reads the device on the host:
// the step count, a tensor learning rate, grad_scale and found_inf stay on the device,
// and a step with found_inf set leaves every tensor unchanged (a select, as stock's early
// return).
#include <optional>

#include <ATen/OpMathType.h>
#include <ATen/ScalarOps.h>
#include <ATen/core/Tensor.h>
#include <ATen/native/ForeachUtils.h>
#include <ATen/ops/_fused_adam_native.h>
#include <ATen/ops/_fused_adamw_native.h>
#include <ATen/ops/_fused_sgd_native.h>
#include <ATen/ops/add.h>
#include <ATen/ops/div.h>
#include <ATen/ops/maximum.h>
#include <ATen/ops/mul.h>
#include <ATen/ops/pow.h>
#include <ATen/ops/rsub.h>
#include <ATen/ops/sqrt.h>
#include <ATen/ops/sub.h>
#include <ATen/ops/where.h>

namespace at::native {

namespace {

// A scalar learning rate as an operand: a wrapped number, promoted as a Python scalar is.
Tensor scalar_operand(double value) {
  Tensor t = c10::scalar_to_tensor(value);
  t.unsafeGetTensorImpl()->set_wrapped_number(true);
  return t;
}

// The learning rate as an operand of the update: stock reads a CPU tensor's value.
Tensor lr_operand(const Tensor& lr, const Tensor& param) {
  if (lr.is_cpu()) return scalar_operand(lr.item<double>());
  TORCH_CHECK(lr.device() == param.device(), "lr must be on the same GPU device as the params");
  return lr;
}

// Writes `value` into `dst`, or keeps `dst` where `skip` (found_inf) is set.
void store(const Tensor& dst, const Tensor& value, const std::optional<Tensor>& skip) {
  if (!value.is_same(dst)) dst.copy_(skip ? at::where(*skip, dst, value) : value);
}

std::optional<Tensor> skip_flag(const std::optional<Tensor>& found_inf) {
  if (!found_inf.has_value() || !found_inf->defined()) return std::nullopt;
  return found_inf->ne(0);
}

// The gradient as the update reads it: unscaled (and stored back unscaled, as stock does).
Tensor unscaled_grad(const Tensor& grad, const std::optional<Tensor>& grad_scale, const std::optional<Tensor>& skip,
                     ScalarType opmath) {
  Tensor g = grad.to(opmath);
  if (grad_scale.has_value() && grad_scale->defined()) {
    g = at::div(g, *grad_scale);
    store(grad, g, skip);
  }
  return g;
}

struct AdamOptions {
  double beta1, beta2, weight_decay, eps;
  bool amsgrad, maximize, decoupled_weight_decay;
};

void adam_tensors(TensorList params, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,
                  TensorList max_exp_avg_sqs, TensorList state_steps, const Tensor& lr, const AdamOptions& o,
                  const std::optional<Tensor>& grad_scale, const std::optional<Tensor>& found_inf) {
  if (o.amsgrad) {
    TORCH_CHECK(check_fast_path_restrictions({params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs}),
                "params, grads, exp_avgs, exp_avg_sqs, and max_exp_avg_sqs must have same dtype, device, and layout");
  } else {
    TORCH_CHECK(check_fast_path_restrictions({params, grads, exp_avgs, exp_avg_sqs}),
                "params, grads, exp_avgs, and exp_avg_sqs must have same dtype, device, and layout");
  }
  const std::optional<Tensor> skip = skip_flag(found_inf);
  for (size_t i = 0; i < params.size(); ++i) {
    const Tensor& param = params[i];
    const ScalarType opmath = toOpMathType(param.scalar_type());
    const Tensor lr_i = lr_operand(lr, param);
    // Bias corrections from the step count on the device, in double as stock's kernel.
    const Tensor step = state_steps[i].to(kDouble);
    const Tensor step_size = at::div(lr_i, at::rsub(at::pow(o.beta1, step), 1)).to(opmath);
    const Tensor bias_correction2_sqrt = at::sqrt(at::rsub(at::pow(o.beta2, step), 1)).to(opmath);

    Tensor p = param.to(opmath);
    Tensor g = unscaled_grad(grads[i], grad_scale, skip, opmath);
    if (o.maximize) g = g.neg();
    if (o.weight_decay != 0) {
      if (o.decoupled_weight_decay) {
        p = at::sub(p, at::mul(at::mul(lr_i, o.weight_decay), p));
      } else {
        g = at::add(g, p, o.weight_decay);
      }
    }
    const Tensor exp_avg = at::add(at::mul(exp_avgs[i].to(opmath), o.beta1), g, 1 - o.beta1);
    const Tensor exp_avg_sq = at::add(at::mul(exp_avg_sqs[i].to(opmath), o.beta2), at::mul(g, g), 1 - o.beta2);
    Tensor second_moment = exp_avg_sq;
    if (o.amsgrad) {
      second_moment = at::maximum(max_exp_avg_sqs[i].to(opmath), exp_avg_sq);
      store(max_exp_avg_sqs[i], second_moment, skip);
    }
    const Tensor denom = at::add(at::div(at::sqrt(second_moment), bias_correction2_sqrt), o.eps);
    p = at::sub(p, at::div(at::mul(step_size, exp_avg), denom));
    store(exp_avgs[i], exp_avg, skip);
    store(exp_avg_sqs[i], exp_avg_sq, skip);
    store(param, p, skip);
  }
}

void sgd_tensors(TensorList params, TensorList grads, TensorList momentum_buffers, double weight_decay,
                 double momentum, const Tensor& lr, double dampening, bool nesterov, bool maximize,
                 bool is_first_step, const std::optional<Tensor>& grad_scale, const std::optional<Tensor>& found_inf) {
  const bool has_momentum = !momentum_buffers.empty();
  if (has_momentum) {
    TORCH_CHECK(momentum != 0, "momentum_buffer_list must be empty when momentum is 0");
    TORCH_CHECK(check_fast_path_restrictions({params, grads, momentum_buffers}),
                "params, grads, and momentum_buffer_list must have same dtype, device, and layout");
  } else {
    TORCH_CHECK(check_fast_path_restrictions({params, grads}), "params and grads must have same dtype, device, and layout");
  }
  const std::optional<Tensor> skip = skip_flag(found_inf);
  for (size_t i = 0; i < params.size(); ++i) {
    const Tensor& param = params[i];
    const ScalarType opmath = toOpMathType(param.scalar_type());
    const Tensor lr_i = lr_operand(lr, param);
    Tensor p = param.to(opmath);
    Tensor g = unscaled_grad(grads[i], grad_scale, skip, opmath);
    if (maximize) g = g.neg();
    if (weight_decay != 0) g = at::add(g, p, weight_decay);
    if (has_momentum) {
      const Tensor buffer = is_first_step
                                ? g
                                : at::add(at::mul(momentum_buffers[i].to(opmath), momentum), g, 1 - dampening);
      store(momentum_buffers[i], buffer, skip);
      g = nesterov ? at::add(g, buffer, momentum) : buffer;
    }
    store(param, at::sub(p, at::mul(lr_i, g)), skip);
  }
}

}  // namespace

void _fused_adam_kernel_cuda_(TensorList params, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,
                              TensorList max_exp_avg_sqs, TensorList state_steps, double lr, double beta1,
                              double beta2, double weight_decay, double eps, bool amsgrad, bool maximize,
                              const std::optional<Tensor>& grad_scale, const std::optional<Tensor>& found_inf) {
  adam_tensors(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, scalar_operand(lr),
               {beta1, beta2, weight_decay, eps, amsgrad, maximize, false}, grad_scale, found_inf);
}

void _fused_adam_kernel_cuda_(TensorList params, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,
                              TensorList max_exp_avg_sqs, TensorList state_steps, const Tensor& lr, double beta1,
                              double beta2, double weight_decay, double eps, bool amsgrad, bool maximize,
                              const std::optional<Tensor>& grad_scale, const std::optional<Tensor>& found_inf) {
  adam_tensors(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, lr,
               {beta1, beta2, weight_decay, eps, amsgrad, maximize, false}, grad_scale, found_inf);
}

void _fused_adamw_kernel_cuda_(TensorList params, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,
                               TensorList max_exp_avg_sqs, TensorList state_steps, double lr, double beta1,
                               double beta2, double weight_decay, double eps, bool amsgrad, bool maximize,
                               const std::optional<Tensor>& grad_scale, const std::optional<Tensor>& found_inf) {
  adam_tensors(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, scalar_operand(lr),
               {beta1, beta2, weight_decay, eps, amsgrad, maximize, true}, grad_scale, found_inf);
}

void _fused_adamw_kernel_cuda_(TensorList params, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,
                               TensorList max_exp_avg_sqs, TensorList state_steps, const Tensor& lr, double beta1,
                               double beta2, double weight_decay, double eps, bool amsgrad, bool maximize,
                               const std::optional<Tensor>& grad_scale, const std::optional<Tensor>& found_inf) {
  adam_tensors(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, lr,
               {beta1, beta2, weight_decay, eps, amsgrad, maximize, true}, grad_scale, found_inf);
}

void _fused_sgd_kernel_cuda_(TensorList params, TensorList grads, TensorList momentum_buffers, double weight_decay,
                             double momentum, double lr, double dampening, bool nesterov, bool maximize,
                             bool is_first_step, const std::optional<Tensor>& grad_scale,
                             const std::optional<Tensor>& found_inf) {
  sgd_tensors(params, grads, momentum_buffers, weight_decay, momentum, scalar_operand(lr), dampening, nesterov,
              maximize, is_first_step, grad_scale, found_inf);
}

void _fused_sgd_kernel_cuda_(TensorList params, TensorList grads, TensorList momentum_buffers, double weight_decay,
                             double momentum, const Tensor& lr, double dampening, bool nesterov, bool maximize,
                             bool is_first_step, const std::optional<Tensor>& grad_scale,
                             const std::optional<Tensor>& found_inf) {
  sgd_tensors(params, grads, momentum_buffers, weight_decay, momentum, lr, dampening, nesterov, maximize,
              is_first_step, grad_scale, found_inf);
}

}  // namespace at::native
