#include "third_device/torch_cuda/torch_cuda/csrc/aten/kernels/device_smoke.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/kernels/elementwise_add.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_check.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_device_runtime.h"

namespace torch_cuda {
namespace {

// Frees device buffers on every exit path, so a failed check leaks nothing.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t bytes) { TORCH_CUDA_CHECK(cudaMalloc(&ptr_, bytes)); }
  ~DeviceBuffer() { cudaFree(ptr_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  float* get() const { return static_cast<float*>(ptr_); }

 private:
  void* ptr_ = nullptr;
};

}  // namespace

double device_add_round_trip(int device, std::int64_t n) {
  CudaRuntime().properties(device);  // validates the index with a clear message
  TORCH_CUDA_CHECK(cudaSetDevice(device));
  const float alpha = 0.5f;
  std::vector<float> a(n), b(n), out(n);
  for (std::int64_t i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i % 1000) * 0.25f;
    b[i] = static_cast<float>((i * 7) % 1000) - 500.0f;
  }
  const std::size_t bytes = sizeof(float) * static_cast<std::size_t>(n);
  DeviceBuffer a_dev(bytes), b_dev(bytes), out_dev(bytes);
  TORCH_CUDA_CHECK(cudaMemcpy(a_dev.get(), a.data(), bytes, cudaMemcpyHostToDevice));
  TORCH_CUDA_CHECK(cudaMemcpy(b_dev.get(), b.data(), bytes, cudaMemcpyHostToDevice));
  launch_add_f32(a_dev.get(), b_dev.get(), alpha, out_dev.get(), n, /*stream=*/nullptr);
  TORCH_CUDA_CHECK(cudaMemcpy(out.data(), out_dev.get(), bytes, cudaMemcpyDeviceToHost));
  double max_error = 0.0;
  for (std::int64_t i = 0; i < n; ++i) {
    max_error = std::max(max_error, std::fabs(static_cast<double>(out[i]) - (a[i] + alpha * b[i])));
  }
  return max_error;
}

}  // namespace torch_cuda
