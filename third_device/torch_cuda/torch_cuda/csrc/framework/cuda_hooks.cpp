#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_hooks.h"

#include <cstdint>
#include <string>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_version.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/fft/fft_plan_cache.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_backend.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/variant.h"

namespace torch_cuda {

// backend() makes the CUDA backend on first use; the hooks ask for it on every call, so
// registering them (while torch._C initialises) creates nothing.
CUDAHooks::CUDAHooks(at::CUDAHooksArgs /*args*/) : BackendHooks(&torch_cuda::backend) {}

bool CUDAHooks::hasCUDA() const { return isAvailable(); }

long CUDAHooks::versionCUDART() const { return variant::cudart_version(); }

namespace {

int current_major() { return current_compute_capability().first; }

}  // namespace

// Volta and later, as stock asks (with cuDNN 8.2 or later, which the pinned one is).
bool CUDAHooks::supportsDepthwiseConvolutionWithCuDNN() const { return current_major() >= 7; }
bool CUDAHooks::supportsBFloat16ConvolutionWithCuDNNv8() const { return current_major() >= 8; }
bool CUDAHooks::supportsBFloat16RNNWithCuDNN() const { return current_major() >= 8; }
long CUDAHooks::versionCuDNN() const { return cudnn::compile_version(); }
long CUDAHooks::versionRuntimeCuDNN() const { return cudnn::runtime_version(); }
// CUDNN_BN_MIN_EPSILON: 0 since cuDNN 8.
double CUDAHooks::batchnormMinEpsilonCuDNN() const { return 0.0; }

std::string CUDAHooks::showConfig() const {
  return std::string("  - torch_cuda (out-of-tree CUDA backend, ") + variant::name() + " runtime, CUDA runtime " +
         std::to_string(versionCUDART()) + ")\n";
}

int CUDAHooks::getNumGPUs() const { return backend().device_count(); }

c10::DeviceIndex CUDAHooks::current_device() const {
  return backend().device_count() > 0 ? backend().current_device() : -1;
}

void CUDAHooks::deviceSynchronize(c10::DeviceIndex device_index) const {
  backend().guard().synchronizeDevice(device_index);
}

at::Allocator* CUDAHooks::getCUDADeviceAllocator() const { return &backend().allocator(); }

namespace {

// The plan cache of `device_index`, checked as stock checks it (`what` names the call).
fft::PlanCache& plan_cache(const char* what, c10::DeviceIndex device_index) {
  const int count = backend().device_count();
  TORCH_CHECK(0 <= device_index && device_index < count, what, ": expected 0 <= device_index < ", count,
              "], but got device_index=", static_cast<int>(device_index));
  return fft::plan_cache(device_index);
}

}  // namespace

int64_t CUDAHooks::cuFFTGetPlanCacheMaxSize(c10::DeviceIndex device_index) const {
  return plan_cache("cufft_get_plan_cache_max_size", device_index).capacity();
}

void CUDAHooks::cuFFTSetPlanCacheMaxSize(c10::DeviceIndex device_index, int64_t max_size) const {
  fft::PlanCache& cache = plan_cache("cufft_set_plan_cache_max_size", device_index);
  TORCH_CHECK(max_size >= 0, "cuFFT plan cache size must be non-negative, but got ", max_size);
  cache.set_capacity(max_size);
}

int64_t CUDAHooks::cuFFTGetPlanCacheSize(c10::DeviceIndex device_index) const {
  return plan_cache("cufft_get_plan_cache_size", device_index).size();
}

void CUDAHooks::cuFFTClearPlanCache(c10::DeviceIndex device_index) const {
  plan_cache("cufft_clear_plan_cache", device_index).clear();
}

}  // namespace torch_cuda

// The registry entry ATen's at::detail::getCUDAHooks() creates (by the name "CUDAHooks").
// C10_REGISTER_TYPED_CLASS expands to names qualified relative to the registry's
// namespace, so it must be written inside namespace at.
namespace at {
C10_REGISTER_TYPED_CLASS(CUDAHooksRegistry, "CUDAHooks", torch_cuda::CUDAHooks)
}  // namespace at
