#include "torch_core/csrc/device/accelerator_errors.h"

#include <c10/util/Exception.h>

namespace torch_core {

void throw_invalid_device(c10::DeviceType device_type, const std::string& detail) {
  throw c10::AcceleratorError({__func__, __FILE__, static_cast<uint32_t>(__LINE__)}, kInvalidDeviceErrorCode,
                              c10::DeviceTypeName(device_type) + " error: invalid device ordinal (" + detail + ")");
}

namespace {

[[noreturn]] void throw_kernel_error(c10::DeviceType device_type, int code, const char* what,
                                     const std::string& detail) {
  throw c10::AcceleratorError({__func__, __FILE__, static_cast<uint32_t>(__LINE__)}, code,
                              c10::DeviceTypeName(device_type) + " error: " + what + " (" + detail +
                                  ")\nKernel errors are reported asynchronously, at a later API call, so the "
                                  "stacktrace below might be incorrect.");
}

}  // namespace

void throw_device_assert(c10::DeviceType device_type, const std::string& detail) {
  throw_kernel_error(device_type, kDeviceAssertErrorCode, "device-side assert triggered", detail);
}

void throw_illegal_address(c10::DeviceType device_type, const std::string& detail) {
  throw_kernel_error(device_type, kIllegalAddressErrorCode, "an illegal memory access was encountered", detail);
}

}  // namespace torch_core
