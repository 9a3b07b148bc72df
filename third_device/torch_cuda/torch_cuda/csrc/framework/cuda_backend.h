// torch_cuda's torch_core backend on the CUDA device type: stream registry, caching
// allocator (PYTORCH_CUDA_ALLOC_CONF), pinned host allocator, Philox generators and the
// device guard, over the variant's runtime (variant.h).
#pragma once

#include <utility>

#include <c10/core/DeviceType.h>

#include "torch_core/csrc/aten/cpu_fallback.h"
#include "torch_core/csrc/device/backend.h"

namespace torch_cuda {

inline constexpr const char* kAllocatorConfigEnv = "PYTORCH_CUDA_ALLOC_CONF";
// allow | warn | error: what an operator without a CUDA kernel does (CPU fallback policy).
inline constexpr const char* kFallbackPolicyEnv = "TORCH_CUDA_FALLBACK";

// Creates the backend and registers its guard and allocator with c10, once (thread-safe);
// later calls return it. The runtime itself is created on first use of the device.
torch_core::Backend& backend();

// The current device's compute capability (major, minor), as stock's checks read
// getCurrentDeviceProperties (variant::compute_capability); the runtime made if need be.
std::pair<int, int> current_compute_capability();

// Operator Op (an at::_ops struct) on the CPU through the CUDA key's fallback (counted,
// policy applied): what a native kernel calls for the cases it does not cover.
template <class Op, class... Args>
decltype(auto) fall_back(Args&&... args) {
  return torch_core::run_on_cpu<c10::DeviceType::CUDA, Op>(std::forward<Args>(args)...);
}

}  // namespace torch_cuda
