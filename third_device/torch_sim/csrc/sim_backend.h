// The simulated device on PrivateUse1: torch_core's backend over the simulated runtime
// (host memory, one worker thread per stream), the reference a new vendor copies.
//
// Settings come from the environment when the device is first used (lazy init):
// TORCH_SIM_DEVICE_COUNT, TORCH_SIM_MEMORY_MB (the runtime's), PYTORCH_SIM_ALLOC_CONF (the
// caching allocator's), TORCH_SIM_FALLBACK (allow | warn | error: the CPU fallback policy).
#pragma once

#include <functional>

#include "torch_core/device/backend.h"
#include "torch_core/runtime/simulated_runtime.h"

namespace torch_sim {

inline constexpr const char* kFallbackPolicyEnv = "TORCH_SIM_FALLBACK";
inline constexpr const char* kAllocatorConfigEnv = "PYTORCH_SIM_ALLOC_CONF";

// Creates the backend and registers it with c10 and ATen, once; later calls return it.
torch_core::Backend& register_backend();

// The runtime, created now if it was not (throws c10::Error when the settings are bad).
torch_core::SimulatedRuntime& runtime();

// The simulated device's kernel launch: `work` runs on the worker of `stream`, after what
// is queued there. Kernels capture raw pointers and sizes, never tensors (as a GPU
// kernel's arguments): the caching allocator's stream semantics keep the memory valid.
void launch(torch_core::StreamHandle stream, std::function<void()> work);

}  // namespace torch_sim
