// The generic ops' device kernels (copy and fill, torch_core/csrc/aten/device_kernels.h)
// over a device type's kernel engine: copy is the Identity functor with the engine's
// dynamic casting (any strides, broadcast sources, dtype conversions), fill the Fill
// functor. A backend with a kernel engine registers these rather than writing its own;
// without them the generic ops stage through host memory, synchronously.
#pragma once

#include <c10/core/DeviceType.h>

#include "torch_core/csrc/aten/device_kernels.h"

namespace torch_core::engine {

// One per device type, for the rest of the process. Each call runs on the engine
// registered for `device_type` at the time of the call.
DeviceKernels* engine_device_kernels(c10::DeviceType device_type);

}  // namespace torch_core::engine
