// at::cuda's context functions under stock's names and signatures (the pinned torch's
// ATen/cuda/CUDAContextLight.h), exported by the real variant's _CUDAC, as stock's
// libtorch_cuda.so exports them: device properties, the caching allocator, and the
// calling thread's cuBLAS, cuBLASLt and cuSOLVER handles bound to the current stream
// (the handles torch_cuda's own matrix products and solvers use).
#include <ATen/cuda/CUDAContextLight.h>
#include <c10/core/Allocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAStream.h>
#include <c10/util/Exception.h>
#include <cuda_runtime_api.h>

#include <mutex>
#include <vector>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/blas/cublas_handle.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/linalg/cusolver_handle.h"

namespace at::cuda {

namespace {

// Each device's properties, read once; the pointers stay valid for the process.
cudaDeviceProp* properties_of(c10::DeviceIndex device) {
  static std::once_flag once;
  static std::vector<std::once_flag> read;
  static std::vector<cudaDeviceProp> properties;
  std::call_once(once, [] {
    const auto count = static_cast<std::size_t>(c10::cuda::device_count());
    read = std::vector<std::once_flag>(count);
    properties.resize(count);
  });
  TORCH_CHECK(device >= 0 && static_cast<std::size_t>(device) < properties.size(), "device=", device,
              ", but there are ", properties.size(), " CUDA devices");
  std::call_once(read[device], [device] { C10_CUDA_CHECK(cudaGetDeviceProperties(&properties[device], device)); });
  return &properties[device];
}

cudaStream_t current_stream() { return c10::cuda::getCurrentCUDAStream().stream(); }

}  // namespace

cudaDeviceProp* getCurrentDeviceProperties() { return properties_of(c10::cuda::current_device()); }

cudaDeviceProp* getDeviceProperties(c10::DeviceIndex device) {
  return properties_of(device < 0 ? c10::cuda::current_device() : device);
}

int warp_size() { return getCurrentDeviceProperties()->warpSize; }

bool canDeviceAccessPeer(c10::DeviceIndex device, c10::DeviceIndex peer_device) {
  int can_access = 0;
  C10_CUDA_CHECK(cudaDeviceCanAccessPeer(&can_access, device, peer_device));
  return can_access != 0;
}

c10::Allocator* getCUDADeviceAllocator() { return c10::GetAllocator(c10::DeviceType::CUDA); }

cublasHandle_t getCurrentCUDABlasHandle(bool /*setup*/) { return torch_cuda::blas::current_handle(current_stream()); }

cublasLtHandle_t getCurrentCUDABlasLtHandle() { return torch_cuda::blas::current_lt_binding(current_stream()).handle; }

cusolverDnHandle_t getCurrentCUDASolverDnHandle() { return torch_cuda::solver::current_handle(current_stream()); }

}  // namespace at::cuda
