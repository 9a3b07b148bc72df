#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_hooks.h"

#include <string>

#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_backend.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/variant.h"

namespace torch_cuda {

// backend() makes the CUDA backend on first use; the hooks ask for it on every call, so
// registering them (while torch._C initialises) creates nothing.
CUDAHooks::CUDAHooks(at::CUDAHooksArgs /*args*/) : BackendHooks(&torch_cuda::backend) {}

bool CUDAHooks::hasCUDA() const { return isAvailable(); }

long CUDAHooks::versionCUDART() const { return variant::cudart_version(); }

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

}  // namespace torch_cuda

// The registry entry ATen's at::detail::getCUDAHooks() creates (by the name "CUDAHooks").
// C10_REGISTER_TYPED_CLASS expands to names qualified relative to the registry's
// namespace, so it must be written inside namespace at.
namespace at {
C10_REGISTER_TYPED_CLASS(CUDAHooksRegistry, "CUDAHooks", torch_cuda::CUDAHooks)
}  // namespace at
