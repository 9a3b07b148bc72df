// Creating a device backend and making c10 and ATen use it: the one call a vendor's
// library makes when it loads (before any tensor of its device type exists).
//
// Registers the device guard (c10::impl::DeviceGuardImplRegistrar), the caching device
// allocator (c10::SetAllocator), the pinned host allocator, the graph implementation, the
// profiler's device stubs (profiler_stubs.h) and, for PrivateUse1, the hooks
// (at::RegisterPrivateUse1HooksInterface). Operators are registered separately, by the
// vendor's TORCH_LIBRARY_IMPL blocks (torch_core/aten/native_registration.h), so a
// vendor chooses which generic kernels it takes.
#pragma once

#include "torch_core/csrc/device/backend.h"

namespace torch_core {

Backend& register_backend(BackendOptions options);

}  // namespace torch_core
