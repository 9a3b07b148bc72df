// The host kernel engine: torch_core's stub kernels on a device whose memory the host
// addresses (a simulated device). Each call is queued on the current stream's worker
// through the backend's launch function, so it runs in stream order after the copies
// and kernels queued before it, as a GPU kernel would.
#pragma once

#include <c10/core/DeviceType.h>

#include "torch_core/csrc/aten/engine/kernel_engine.h"
#include "torch_core/csrc/aten/host_loop_kernels.h"

namespace torch_core::engine {

// Registers the host engine for `device_type` (and fills its stubs); `launch` queues
// work on a stream of that device type's backend.
void register_host_engine(c10::DeviceType device_type, HostLaunch launch);

// The launch function the host engine of `device_type` queues with, for kernels compiled
// outside torch_core (a backend's C++ extensions: torch_core/csrc/extension/host_kernel.h);
// raises naming the device type where no host engine serves it (a real device, whose
// extensions' kernels are compiled for it).
HostLaunch host_launch(c10::DeviceType device_type);

}  // namespace torch_core::engine
