// The simulated device's native operators: elementwise, reduction and random, all host
// loops of torch_core's kernel loop API launched on stream workers. (The DeviceKernels
// torch_core's generic ops need are torch_core's host-loop ones: sim_backend.cpp.)
#pragma once

#include <optional>

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>
#include <c10/core/Scalar.h>
#include <c10/core/ScalarType.h>
#include <c10/util/OptionalArrayRef.h>

namespace torch_sim {

// Operators with native kernels (registered in registration.cpp). Cases they do not
// cover (mixed dtypes, unsupported dtypes, host operands other than a scalar) go to the
// CPU fallback, and are counted there.
at::Tensor add(const at::Tensor& self, const at::Tensor& other, const c10::Scalar& alpha);
at::Tensor& add_(at::Tensor& self, const at::Tensor& other, const c10::Scalar& alpha);
at::Tensor mul(const at::Tensor& self, const at::Tensor& other);
at::Tensor& mul_(at::Tensor& self, const at::Tensor& other);
at::Tensor sum(const at::Tensor& self, std::optional<c10::ScalarType> dtype);
at::Tensor sum_dim(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                   std::optional<c10::ScalarType> dtype);
at::Tensor& normal_(at::Tensor& self, double mean, double std, std::optional<at::Generator> generator);
at::Tensor& uniform_(at::Tensor& self, double from, double to, std::optional<at::Generator> generator);

}  // namespace torch_sim
