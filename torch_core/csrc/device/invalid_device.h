// The error for a device index the runtime does not have. Stock CUDA torch reports it from
// cudaSetDevice as "CUDA error: invalid device ordinal", a torch.AcceleratorError (a
// RuntimeError) with cudart's error code; torch_core raises the same type and code,
// adding which indices are valid.
#pragma once

#include <string>

#include <c10/core/DeviceType.h>

namespace torch_core {

// cudaErrorInvalidDevice, the code torch.AcceleratorError.error_code carries.
constexpr int kInvalidDeviceErrorCode = 101;

[[noreturn]] void throw_invalid_device(c10::DeviceType device_type, const std::string& detail);

}  // namespace torch_core
