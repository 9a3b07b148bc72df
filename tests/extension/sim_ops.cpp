// An extension for torch_sim (PrivateUse1, "sim"), written to torch_core's backend-generic
// extension API: out = x + alpha * y on the simulated device's host engine.
#include <ATen/Dispatch.h>
#include <ATen/TensorIterator.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

#include "torch_core/csrc/extension/host_kernel.h"

namespace {

template <typename T>
struct ScaledAdd {
  T alpha;
  T operator()(T x, T y) const { return x + alpha * y; }
};

at::Tensor scaled_add(const at::Tensor& x, const at::Tensor& y, double alpha) {
  const c10::DeviceGuard guard(x.device());
  at::TensorIterator iter =
      at::TensorIteratorConfig().add_owned_output(at::Tensor()).add_const_input(x).add_const_input(y).build();
  AT_DISPATCH_FLOATING_TYPES(iter.common_dtype(), "scaled_add", [&] {
    torch_core::extension::host_kernel(iter, ScaledAdd<scalar_t>{static_cast<scalar_t>(alpha)});
  });
  return iter.output();
}

}  // namespace

TORCH_LIBRARY(sim_ops, m) { m.def("scaled_add(Tensor x, Tensor y, float alpha) -> Tensor"); }

TORCH_LIBRARY_IMPL(sim_ops, PrivateUse1, m) { m.impl("scaled_add", &scaled_add); }
