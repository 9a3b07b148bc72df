// The simulated device on PrivateUse1: torch_core's backend over its simulated device
// (torch_core/simulated: host memory, one worker thread per stream), the reference a new
// vendor copies.
//
// Settings come from the environment when the device is first used (lazy init):
// TORCH_SIM_DEVICE_COUNT, TORCH_SIM_MEMORY_MB (the runtime's), PYTORCH_SIM_ALLOC_CONF (the
// caching allocator's), TORCH_SIM_FALLBACK (allow | warn | error: the CPU fallback policy).
#pragma once

#include <c10/core/DeviceType.h>

#include "torch_core/csrc/device/backend.h"

namespace torch_sim {

inline constexpr c10::DeviceType kDeviceType = c10::DeviceType::PrivateUse1;
inline constexpr const char* kFallbackPolicyEnv = "TORCH_SIM_FALLBACK";
inline constexpr const char* kAllocatorConfigEnv = "PYTORCH_SIM_ALLOC_CONF";

// Creates the backend and registers it with c10 and ATen, once; later calls return it.
torch_core::Backend& register_backend();

}  // namespace torch_sim
