// The torch.AcceleratorError (a RuntimeError carrying cudart's error code) that stock CUDA
// torch raises for two runtime failures, with the same type, code and first line:
// - a device index the runtime does not have: "CUDA error: invalid device ordinal", from
//   cudaSetDevice; torch_core adds which indices are valid;
// - work queued on a stream that failed, as a kernel's device-side assertion does
//   (cudaErrorAssert): "CUDA error: device-side assert triggered", at the next
//   synchronisation; torch_core adds what failed;
// - work that touched device memory that is not allocated (cudaErrorIllegalAddress):
//   "CUDA error: an illegal memory access was encountered", likewise.
#pragma once

#include <string>

#include <c10/core/DeviceType.h>

namespace torch_core {

// cudaErrorInvalidDevice, cudaErrorAssert and cudaErrorIllegalAddress, the codes torch.AcceleratorError.error_code
// carries.
constexpr int kInvalidDeviceErrorCode = 101;
constexpr int kDeviceAssertErrorCode = 710;
constexpr int kIllegalAddressErrorCode = 700;

[[noreturn]] void throw_invalid_device(c10::DeviceType device_type, const std::string& detail);
[[noreturn]] void throw_device_assert(c10::DeviceType device_type, const std::string& detail);
[[noreturn]] void throw_illegal_address(c10::DeviceType device_type, const std::string& detail);

}  // namespace torch_core
