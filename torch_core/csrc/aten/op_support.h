// Helpers shared by torch_core's generic native ops (private to the aten layer).
#pragma once

#include <stdexcept>
#include <utility>

#include <c10/core/Device.h>
#include <c10/util/Exception.h>

#include "torch_core/device/backend.h"
#include "torch_core/runtime/device_runtime.h"

namespace torch_core::aten_detail {

// The backend of a device (c10::Error naming the type when none is registered).
inline Backend& backend_of(const c10::Device& device) { return Backend::get(device.type()); }

// Runs a runtime call, turning its exceptions into c10 errors (Python RuntimeError /
// IndexError with the runtime's message).
template <typename F>
auto runtime_call(F&& f) -> decltype(f()) {
  try {
    return std::forward<F>(f)();
  } catch (const std::out_of_range& e) {
    TORCH_CHECK_INDEX(false, e.what());
  } catch (const RuntimeError& e) {
    TORCH_CHECK(false, e.what());
  }
}

// The thread's current stream handle on the tensor's device.
inline StreamHandle current_stream(Backend& backend, c10::DeviceIndex device) {
  return backend.streams().current_handle(device);
}

}  // namespace torch_core::aten_detail
