// Calls into a backend's runtime and allocators, with their failures raised as the c10
// errors stock CUDA torch raises for the same cudart failures.
#pragma once

#include <stdexcept>
#include <utility>

#include <c10/core/DeviceType.h>
#include <c10/util/Exception.h>

#include "torch_core/csrc/device/accelerator_errors.h"
#include "torch_core/csrc/runtime/allocator_errors.h"
#include "torch_core/csrc/runtime/device_runtime.h"

namespace torch_core {

// Runs f(): out of memory becomes torch.OutOfMemoryError, a device index the runtime does
// not have torch.AcceleratorError "invalid device ordinal", failed stream work
// torch.AcceleratorError "device-side assert triggered" (or "an illegal memory access was
// encountered" when it touched memory that is not allocated), any other runtime failure a
// RuntimeError; each with the runtime's message.
template <typename F>
auto runtime_call(c10::DeviceType device_type, F&& f) -> decltype(f()) {
  try {
    return std::forward<F>(f)();
  } catch (const OutOfMemoryError& e) {
    TORCH_CHECK_WITH(OutOfMemoryError, false, e.what());
  } catch (const std::out_of_range& e) {
    throw_invalid_device(device_type, e.what());
  } catch (const IllegalAddressError& e) {
    throw_illegal_address(device_type, e.what());
  } catch (const DeviceWorkError& e) {
    throw_device_assert(device_type, e.what());
  } catch (const RuntimeError& e) {
    TORCH_CHECK(false, e.what());
  }
}

}  // namespace torch_core
