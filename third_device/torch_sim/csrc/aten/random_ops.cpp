// normal_ and uniform_ on the simulated device: torch_core's host-loop Philox kernels
// over the device's generator (torch_core::PhiloxGenerator), so manual_seed and
// set_rng_state replay them. What they do not cover goes to the CPU fallback.
#include <ATen/core/Tensor.h>
#include <ATen/ops/normal_ops.h>
#include <ATen/ops/uniform_ops.h>

#include "op_helpers.h"
#include "third_device/torch_sim/csrc/aten/sim_kernels.h"
#include "torch_core/aten/host_loop_kernels.h"

namespace torch_sim {

at::Tensor& normal_(at::Tensor& self, double mean, double std, std::optional<at::Generator> generator) {
  if (!torch_core::host_normal_(register_backend(), &launch, self, mean, std, generator)) {
    return detail::fall_back<at::_ops::normal_>(self, mean, std, generator);
  }
  return self;
}

at::Tensor& uniform_(at::Tensor& self, double from, double to, std::optional<at::Generator> generator) {
  if (!torch_core::host_uniform_(register_backend(), &launch, self, from, to, generator)) {
    return detail::fall_back<at::_ops::uniform_>(self, from, to, generator);
  }
  return self;
}

}  // namespace torch_sim
