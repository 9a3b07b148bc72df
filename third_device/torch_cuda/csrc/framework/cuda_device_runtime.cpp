#include "third_device/torch_cuda/csrc/framework/cuda_device_runtime.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <stdexcept>
#include <string>

#include "third_device/torch_cuda/csrc/framework/cuda_check.h"

namespace torch_cuda {
namespace {

// cudaGetDeviceCount fails, rather than reporting 0, when there is no driver or no GPU;
// both mean "no device" to a caller, with the reason kept for messages.
cudaError_t query_device_count(int* count) {
  *count = 0;
  const cudaError_t status = cudaGetDeviceCount(count);
  if (status != cudaSuccess) {
    *count = 0;
    cudaGetLastError();  // reset the last-error state so later calls start clean
  }
  return status;
}

}  // namespace

int CudaRuntime::device_count() const {
  int count = 0;
  query_device_count(&count);
  return count;
}

std::string CudaRuntime::unavailable_reason() const {
  int count = 0;
  const cudaError_t status = query_device_count(&count);
  if (status == cudaSuccess) {
    return count > 0 ? "" : "cudaGetDeviceCount reported no CUDA devices";
  }
  std::string reason = std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
  // cudart says "driver version is insufficient" also when there is no driver at all.
  if (status == cudaErrorInsufficientDriver) {
    void* driver = dlopen("libcuda.so.1", RTLD_LAZY);
    if (driver == nullptr) {
      reason += " (no NVIDIA driver: libcuda.so.1 not found)";
    } else {
      dlclose(driver);
    }
  }
  return reason;
}

torch_core::DeviceProperties CudaRuntime::properties(int device) const {
  const int count = device_count();
  if (device < 0 || device >= count) {
    throw std::out_of_range("invalid CUDA device index " + std::to_string(device) +
                            ": this machine has " + std::to_string(count) +
                            " CUDA device(s), valid indices are 0.." + std::to_string(count - 1));
  }
  cudaDeviceProp prop{};
  TORCH_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  torch_core::DeviceProperties result;
  result.name = prop.name;
  result.total_memory_bytes = prop.totalGlobalMem;
  result.major = prop.major;
  result.minor = prop.minor;
  result.multiprocessor_count = prop.multiProcessorCount;
  return result;
}

}  // namespace torch_cuda
