// The simulated device's own native operators: reduction and random, host loops of
// torch_core's kernel loop API launched on stream workers. (Elementwise operators are
// stock ATen's on torch_core's host engine, and the DeviceKernels of torch_core's generic
// ops are its host-loop ones: sim_backend.cpp.)
#pragma once

#include <optional>

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>
#include <c10/core/ScalarType.h>
#include <c10/util/OptionalArrayRef.h>

namespace torch_sim {

// Operators with native kernels (registered in registration.cpp). Cases they do not
// cover (unsupported dtypes) go to the CPU fallback, and are counted there.
at::Tensor sum(const at::Tensor& self, std::optional<c10::ScalarType> dtype);
at::Tensor sum_dim(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                   std::optional<c10::ScalarType> dtype);
at::Tensor& normal_(at::Tensor& self, double mean, double std, std::optional<at::Generator> generator);
at::Tensor& uniform_(at::Tensor& self, double from, double to, std::optional<at::Generator> generator);

}  // namespace torch_sim
