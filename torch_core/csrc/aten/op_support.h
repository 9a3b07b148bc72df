// Helpers shared by torch_core's generic native ops (private to the aten layer).
#pragma once

#include <c10/core/Device.h>

#include "torch_core/csrc/device/backend.h"

namespace torch_core::aten_detail {

// The backend of a device (c10::Error naming the type when none is registered).
inline Backend& backend_of(const c10::Device& device) { return Backend::get(device.type()); }

}  // namespace torch_core::aten_detail
