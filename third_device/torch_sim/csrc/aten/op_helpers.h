// Helpers of the simulated device's native operators (private to csrc/aten).
#pragma once

#include <utility>

#include <ATen/core/Tensor.h>
#include <c10/core/ScalarType.h>

#include "third_device/torch_sim/csrc/sim_backend.h"
#include "torch_core/aten/cpu_fallback.h"
#include "torch_core/aten/kernel_loop.h"

namespace torch_sim::detail {

// The dtypes the native kernels are instantiated for; others fall back.
inline bool native_dtype(c10::ScalarType type) {
  return type == c10::kFloat || type == c10::kDouble || type == c10::kInt || type == c10::kLong;
}

inline bool on_sim(const at::Tensor& t) { return t.defined() && t.device().is_privateuseone(); }

inline bool loopable(const at::Tensor& t) {
  return t.layout() == c10::kStrided && t.dim() <= torch_core::loop::kMaxDims;
}

inline torch_core::StreamHandle stream_of(const at::Tensor& t) {
  return register_backend().streams().current_handle(t.device().index());
}

// Runs operator Op on the CPU through the device's fallback (counted, policy applied).
template <class Op, class... Args>
decltype(auto) fall_back(Args&&... args) {
  return torch_core::run_on_cpu<c10::DeviceType::PrivateUse1, Op>(std::forward<Args>(args)...);
}

}  // namespace torch_sim::detail
