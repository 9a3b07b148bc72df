#include "torch_core/csrc/aten/device_kernels.h"

#include "torch_core/csrc/device/backend.h"

namespace torch_core {

void register_device_kernels(c10::DeviceType device_type, DeviceKernels* kernels) {
  Backend::get(device_type).set_device_kernels(kernels);
}

DeviceKernels* device_kernels(c10::DeviceType device_type) noexcept {
  Backend* backend = Backend::find(device_type);
  return backend == nullptr ? nullptr : backend->device_kernels();
}

}  // namespace torch_core
