#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_hooks.h"

#include <string>

#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_backend.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/variant.h"

namespace torch_cuda {

bool CUDAHooks::isAvailable() const { return backend().device_count() > 0; }

void CUDAHooks::init() const { backend().initialize(); }

// CUDA's "primary context" is the initialised device; here, the runtime.
bool CUDAHooks::hasPrimaryContext(c10::DeviceIndex /*device_index*/) const { return backend().initialized(); }

bool CUDAHooks::hasCUDA() const { return isAvailable(); }

long CUDAHooks::versionCUDART() const { return variant::cudart_version(); }

std::string CUDAHooks::showConfig() const {
  return std::string("  - torch_cuda (out-of-tree CUDA backend, ") + variant::name() + " runtime, CUDA runtime " +
         std::to_string(versionCUDART()) + ")\n";
}

c10::DeviceIndex CUDAHooks::deviceCount() const {
  return static_cast<c10::DeviceIndex>(backend().device_count());
}

int CUDAHooks::getNumGPUs() const { return backend().device_count(); }

c10::DeviceIndex CUDAHooks::current_device() const {
  return backend().device_count() > 0 ? backend().current_device() : -1;
}

c10::DeviceIndex CUDAHooks::getCurrentDevice() const { return backend().current_device(); }

void CUDAHooks::setCurrentDevice(c10::DeviceIndex device) const {
  backend().guard().setDevice(c10::Device(c10::DeviceType::CUDA, device));
}

c10::DeviceIndex CUDAHooks::exchangeDevice(c10::DeviceIndex device) const {
  return backend().guard().exchangeDevice(c10::Device(c10::DeviceType::CUDA, device)).index();
}

// As c10::cuda::MaybeExchangeDevice: do not initialise a device only to switch to it.
c10::DeviceIndex CUDAHooks::maybeExchangeDevice(c10::DeviceIndex device) const {
  if (!backend().initialized()) return -1;
  return exchangeDevice(device);
}

void CUDAHooks::deviceSynchronize(c10::DeviceIndex device_index) const {
  backend().guard().synchronizeDevice(device_index);
}

// The runtime interface cannot map a pointer to its device (cudart would ask
// cudaPointerGetAttributes); the current device is right for every pointer its
// allocator handed out there, which is what from_blob / DLPack callers pass.
at::Device CUDAHooks::getDeviceFromPtr(void* /*data*/) const {
  return at::Device(c10::DeviceType::CUDA, backend().current_device());
}

bool CUDAHooks::isPinnedPtr(const void* data) const {
  // Asked of every CPU tensor by is_pinned(): do not create a backend only to say no.
  return backend().initialized() && backend().host_allocator().is_pinned(data);
}

at::Allocator* CUDAHooks::getPinnedMemoryAllocator() const {
  backend().initialize();
  return &backend().host_allocator();
}

at::Allocator* CUDAHooks::getCUDADeviceAllocator() const { return &backend().allocator(); }

const at::Generator& CUDAHooks::getDefaultGenerator(c10::DeviceIndex device_index) const {
  return backend().default_generator(device_index);
}

at::Generator CUDAHooks::getNewGenerator(c10::DeviceIndex device_index) const {
  return backend().new_generator(device_index);
}

}  // namespace torch_cuda

// The registry entry ATen's at::detail::getCUDAHooks() creates (by the name "CUDAHooks").
// C10_REGISTER_TYPED_CLASS expands to names qualified relative to the registry's
// namespace, so it must be written inside namespace at.
namespace at {
C10_REGISTER_TYPED_CLASS(CUDAHooksRegistry, "CUDAHooks", torch_cuda::CUDAHooks)
}  // namespace at
