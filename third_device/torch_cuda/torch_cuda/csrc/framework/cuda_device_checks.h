// Internal to CudaRuntime's translation units: the device count cudart fixed at
// initialisation, the check of a device index against it, and a scoped current device.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_check.h"

namespace torch_cuda {
namespace device_checks {

struct DeviceCount {
  int count = 0;
  cudaError_t status = cudaSuccess;
};

// cudaGetDeviceCount fails, rather than reporting 0, when there is no driver or no GPU;
// both mean "no device" to a caller, with the reason kept for messages. cudart fixes the
// set of devices when it initialises (CUDA_VISIBLE_DEVICES included), so the answer is
// taken once: every call that takes a device index validates it against this.
inline const DeviceCount& device_count_query() {
  static const DeviceCount result = [] {
    DeviceCount query;
    query.status = cudaGetDeviceCount(&query.count);
    if (query.status != cudaSuccess) {
      query.count = 0;
      cudaGetLastError();  // reset the last-error state so later calls start clean
    }
    return query;
  }();
  return result;
}

inline void check_device(int device, const char* call) {
  const int count = device_count_query().count;
  if (device >= 0 && device < count) return;
  std::string message = "invalid CUDA device index " + std::to_string(device) + " (in " + call +
                        "): this machine has " + std::to_string(count) + " CUDA device(s), ";
  message += count == 0 ? "so there are no valid indices"
                        : "valid indices are 0.." + std::to_string(count - 1);
  throw std::out_of_range(message);
}

// Makes `device` current for a scope and restores the caller's device after, so that a
// runtime call never changes the thread's current device behind its back.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device) : device_(device) {
    TORCH_CUDA_CHECK(cudaGetDevice(&previous_));
    if (previous_ != device_) TORCH_CUDA_CHECK(cudaSetDevice(device_));
  }
  ~DeviceGuard() {
    // A destructor must not throw; restoring a device that was valid a moment ago only
    // fails when the context is already broken, which the next checked call reports.
    if (previous_ != device_) cudaSetDevice(previous_);
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int device_;
  int previous_ = 0;
};

}  // namespace device_checks
}  // namespace torch_cuda
