// Errors the caching allocators raise.
#pragma once

#include "torch_core/csrc/runtime/device_runtime.h"

namespace torch_core {

// Raised when a request cannot be met even after the cache was released; an adapter
// maps it to torch.OutOfMemoryError (c10::OutOfMemoryError).
class OutOfMemoryError : public RuntimeError {
 public:
  using RuntimeError::RuntimeError;
};

}  // namespace torch_core
