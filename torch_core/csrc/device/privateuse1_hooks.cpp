#include "torch_core/csrc/device/privateuse1_hooks.h"

#include "torch_core/csrc/device/storage_resize.h"

namespace torch_core {

PrivateUse1Hooks::PrivateUse1Hooks(Backend& backend) : backend_(backend) {}

bool PrivateUse1Hooks::isAvailable() const { return backend_.device_count() > 0; }

void PrivateUse1Hooks::init() const { backend_.initialize(); }

// "Primary context" is CUDA's word for an initialised device; here it is the runtime.
bool PrivateUse1Hooks::hasPrimaryContext(c10::DeviceIndex /*device_index*/) const {
  return backend_.initialized();
}

const at::Generator& PrivateUse1Hooks::getDefaultGenerator(c10::DeviceIndex device_index) const {
  return backend_.default_generator(device_index);
}

at::Generator PrivateUse1Hooks::getNewGenerator(c10::DeviceIndex device_index) const {
  return backend_.new_generator(device_index);
}

// The runtime interface cannot map a pointer to its device yet (CUDA asks the driver);
// the current device is right for every pointer the allocator handed out on it.
at::Device PrivateUse1Hooks::getDeviceFromPtr(void* /*data*/) const {
  return at::Device(backend_.device_type(), backend_.current_device());
}

bool PrivateUse1Hooks::isPinnedPtr(const void* data) const {
  return backend_.host_allocator().is_pinned(data);
}

at::Allocator* PrivateUse1Hooks::getPinnedMemoryAllocator() const { return &backend_.host_allocator(); }

c10::DeviceIndex PrivateUse1Hooks::deviceCount() const {
  return static_cast<c10::DeviceIndex>(backend_.device_count());
}

void PrivateUse1Hooks::setCurrentDevice(c10::DeviceIndex device) const {
  backend_.guard().setDevice(c10::Device(backend_.device_type(), device));
}

c10::DeviceIndex PrivateUse1Hooks::getCurrentDevice() const { return backend_.current_device(); }

c10::DeviceIndex PrivateUse1Hooks::exchangeDevice(c10::DeviceIndex device) const {
  return backend_.guard().exchangeDevice(c10::Device(backend_.device_type(), device)).index();
}

// "Maybe": do not initialise the device only to switch to it (CUDA's MaybeExchangeDevice).
c10::DeviceIndex PrivateUse1Hooks::maybeExchangeDevice(c10::DeviceIndex device) const {
  if (!backend_.initialized()) return -1;
  return exchangeDevice(device);
}

void PrivateUse1Hooks::resizePrivateUse1Bytes(const c10::Storage& storage, size_t new_bytes) const {
  resize_device_storage(*storage.unsafeGetStorageImpl(), new_bytes);
}

}  // namespace torch_core
