// A fused bias + GELU, y = gelu(x + bias) (erf form), and its backward, as CUDA operators
// of the bias_gelu_ext library: torch_cuda's example of a custom CUDA extension. The
// functors are written once; gpu_kernel runs them as GPU kernels when nvcc compiles this
// file (torch_cuda's real variant) and on the simulated device's host engine when the host
// compiler does (the simulated variant). bias_gelu.py registers the autograd formula.
#include <ATen/Dispatch.h>
#include <ATen/OpMathType.h>
#include <ATen/TensorIterator.h>
#include <c10/core/DeviceGuard.h>
#include <c10/macros/Macros.h>
#include <torch/library.h>
#include <torch_cuda/gpu_kernel.h>

#include <cmath>

namespace {

constexpr double kSqrtHalf = 0.70710678118654752440;    // 1 / sqrt(2)
constexpr double kInvSqrt2Pi = 0.39894228040143267794;  // 1 / sqrt(2 pi)

// Each functor computes in T's opmath type (float for half and bfloat16).
template <typename T>
struct BiasGelu {
  C10_HOST_DEVICE T operator()(T x, T bias) const {
    const T v = x + bias;
    return T(0.5) * v * (T(1) + ::erf(v * T(kSqrtHalf)));
  }
};

template <typename T>
struct BiasGeluBackward {
  C10_HOST_DEVICE T operator()(T grad, T x, T bias) const {
    const T v = x + bias;
    const T cdf = T(0.5) * (T(1) + ::erf(v * T(kSqrtHalf)));
    const T pdf = T(kInvSqrt2Pi) * ::exp(T(-0.5) * v * v);
    return grad * (cdf + v * pdf);
  }
};

void check_inputs(const at::Tensor& x, const at::Tensor& bias) {
  TORCH_CHECK(bias.dim() == 1 && x.dim() >= 1 && bias.size(0) == x.size(-1),
              "bias_gelu: bias must be 1-d with x's last dimension (", x.dim() >= 1 ? x.size(-1) : 0,
              " elements); got bias of shape ", bias.sizes());
  TORCH_CHECK(at::isFloatingType(x.scalar_type()) && x.scalar_type() == bias.scalar_type(),
              "bias_gelu: x and bias must have one floating dtype; got ", x.scalar_type(), " and ",
              bias.scalar_type());
}

at::Tensor bias_gelu(const at::Tensor& x, const at::Tensor& bias) {
  check_inputs(x, bias);
  // The kernel goes to the current stream of x's device, which must be current (as for
  // any CUDA kernel launch); operators registered by hand get no guard from the dispatcher.
  const c10::DeviceGuard guard(x.device());
  at::TensorIterator iter = at::TensorIteratorConfig()
                                .add_owned_output(at::Tensor())
                                .add_const_input(x)
                                .add_const_input(bias)
                                .build();
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, iter.common_dtype(), "bias_gelu", [&] {
    torch_cuda::gpu_kernel(iter, BiasGelu<at::opmath_type<scalar_t>>{});
  });
  return iter.output();
}

// d(loss)/dx; d(loss)/d(bias) is its sum over x's leading dimensions (bias_gelu.py).
at::Tensor bias_gelu_backward(const at::Tensor& grad, const at::Tensor& x, const at::Tensor& bias) {
  check_inputs(x, bias);
  const c10::DeviceGuard guard(x.device());
  at::TensorIterator iter = at::TensorIteratorConfig()
                                .add_owned_output(at::Tensor())
                                .add_const_input(grad)
                                .add_const_input(x)
                                .add_const_input(bias)
                                .build();
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, iter.common_dtype(), "bias_gelu_backward", [&] {
    torch_cuda::gpu_kernel(iter, BiasGeluBackward<at::opmath_type<scalar_t>>{});
  });
  return iter.output();
}

}  // namespace

TORCH_LIBRARY(bias_gelu_ext, m) {
  m.def("bias_gelu(Tensor x, Tensor bias) -> Tensor");
  m.def("bias_gelu_backward(Tensor grad, Tensor x, Tensor bias) -> Tensor");
}

TORCH_LIBRARY_IMPL(bias_gelu_ext, CUDA, m) {
  m.impl("bias_gelu", &bias_gelu);
  m.impl("bias_gelu_backward", &bias_gelu_backward);
}
