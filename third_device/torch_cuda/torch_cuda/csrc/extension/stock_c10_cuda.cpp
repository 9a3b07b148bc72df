// c10::cuda's device, stream and error-check functions, under stock's names and
// signatures (the pinned torch's c10/cuda/CUDAFunctions.h, CUDAStream.h, CUDAException.h),
// exported by the real variant's _CUDAC: an extension written for stock CUDA torch that
// uses c10::cuda::getCurrentCUDAStream, CUDAGuard or C10_CUDA_CHECK compiles unchanged
// against the CPU wheel's own headers and finds these at load time, where stock's come
// from libc10_cuda.so. Everything goes through torch_cuda's backend (torch_core's stream
// registry, device guard and lazy initialisation), so an extension and torch agree on
// the current device and stream.
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>

#include <ostream>

#include "torch_core/csrc/device/backend.h"

namespace c10::cuda {

namespace {

torch_core::Backend& backend() { return torch_core::Backend::get(DeviceType::CUDA); }

// The registry reads a negative device index as the current device, as stock's functions do;
// initialize() first, for its error when there is no device.
torch_core::StreamRegistry& streams() {
  backend().initialize();
  return backend().streams();
}

}  // namespace

DeviceIndex device_count() noexcept { return static_cast<DeviceIndex>(backend().device_count()); }

DeviceIndex device_count_ensure_non_zero() {
  const DeviceIndex count = device_count();
  TORCH_CHECK(count > 0, "No CUDA GPUs are available");
  return count;
}

DeviceIndex current_device() { return backend().current_device(); }

void set_device(DeviceIndex device, const bool /*force*/) {
  backend().guard().setDevice(Device(DeviceType::CUDA, backend().checked_index(device)));
}

void device_synchronize() { backend().guard().synchronizeDevice(current_device()); }

void warn_or_error_on_sync() {
  if (warning_state().get_sync_debug_mode() == SyncDebugMode::L_ERROR) {
    TORCH_CHECK(false, "called a synchronizing CUDA operation");
  } else if (warning_state().get_sync_debug_mode() == SyncDebugMode::L_WARN) {
    TORCH_WARN("called a synchronizing CUDA operation");
  }
}

// The raw functions return cudart's status, as stock's do.
cudaError_t GetDeviceCount(int* dev_count) { return cudaGetDeviceCount(dev_count); }

cudaError_t GetDevice(DeviceIndex* device) {
  int current = 0;
  const cudaError_t status = cudaGetDevice(&current);
  if (status == cudaSuccess) *device = static_cast<DeviceIndex>(current);
  return status;
}

cudaError_t SetDevice(DeviceIndex device, const bool /*force*/) { return cudaSetDevice(device); }

cudaError_t MaybeSetDevice(DeviceIndex device) { return cudaSetDevice(device); }

DeviceIndex ExchangeDevice(DeviceIndex device) {
  return backend().guard().exchangeDevice(Device(DeviceType::CUDA, device)).index();
}

DeviceIndex MaybeExchangeDevice(DeviceIndex device) { return ExchangeDevice(device); }

void SetTargetDevice() {}

cudaStream_t CUDAStream::stream() const { return static_cast<cudaStream_t>(streams().handle(unwrap())); }

bool CUDAStream::query() const { return backend().guard().queryStream(unwrap()); }

void CUDAStream::synchronize() const { backend().guard().synchronizeStream(unwrap()); }

CUDAStream getStreamFromPool(const bool isHighPriority, DeviceIndex device) {
  return getStreamFromPool(isHighPriority ? -1 : 0, device);
}

CUDAStream getStreamFromPool(const int priority, DeviceIndex device) {
  return CUDAStream(streams().pool_stream(device, priority));
}

CUDAStream getStreamFromExternal(cudaStream_t ext_stream, DeviceIndex device_index) {
  return CUDAStream(streams().external_stream(device_index, ext_stream));
}

CUDAStream getDefaultCUDAStream(DeviceIndex device_index) {
  return CUDAStream(streams().default_stream(device_index));
}

CUDAStream getCurrentCUDAStream(DeviceIndex device_index) {
  return CUDAStream(streams().current_stream(device_index));
}

void setCurrentCUDAStream(CUDAStream stream) { streams().exchange_stream(stream.unwrap()); }

std::ostream& operator<<(std::ostream& stream, const CUDAStream& s) { return stream << s.unwrap(); }

void c10_cuda_check_implementation(const int32_t err, const char* filename, const char* function_name,
                                   const uint32_t line_number, const bool /*include_device_assertions*/) {
  if (C10_LIKELY(err == cudaSuccess)) return;
  const auto error = static_cast<cudaError_t>(err);
  (void)cudaGetLastError();  // clears a non-sticky error, as stock's check does
  TORCH_CHECK_WITH(CUDAError, false, "CUDA error: ", cudaGetErrorString(error), " (", cudaGetErrorName(error),
                   ") at ", filename, ":", line_number, " in ", function_name,
                   "\nCUDA kernel errors might be asynchronously reported at some other API call, so the "
                   "stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1");
}

}  // namespace c10::cuda
