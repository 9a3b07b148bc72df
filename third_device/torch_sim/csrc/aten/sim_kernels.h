// The simulated device's own native operators: normal_ and uniform_, torch_core's
// host-loop Philox kernels launched on stream workers. (Elementwise operators and
// reductions are stock ATen's on torch_core's host engine, and the DeviceKernels of
// torch_core's generic ops are its host-loop ones: sim_backend.cpp.)
#pragma once

#include <optional>

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

namespace torch_sim {

// Registered in registration.cpp. Cases they do not cover (unsupported dtypes) go to
// the CPU fallback, and are counted there.
at::Tensor& normal_(at::Tensor& self, double mean, double std, std::optional<at::Generator> generator);
at::Tensor& uniform_(at::Tensor& self, double from, double to, std::optional<at::Generator> generator);

}  // namespace torch_sim
