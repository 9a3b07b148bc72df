#include "torch_core/csrc/device/invalid_device.h"

#include <c10/util/Exception.h>

namespace torch_core {

void throw_invalid_device(c10::DeviceType device_type, const std::string& detail) {
  throw c10::AcceleratorError({__func__, __FILE__, static_cast<uint32_t>(__LINE__)}, kInvalidDeviceErrorCode,
                              c10::DeviceTypeName(device_type) + " error: invalid device ordinal (" + detail + ")");
}

}  // namespace torch_core
