// torch_core's runtime interface over cudart.
#pragma once

#include "torch_core/runtime/device_runtime.h"

namespace torch_cuda {

class CudaRuntime final : public torch_core::DeviceRuntime {
 public:
  int device_count() const override;
  std::string unavailable_reason() const override;
  torch_core::DeviceProperties properties(int device) const override;
};

}  // namespace torch_cuda
