// What ATen asks of any device outside the dispatcher (at::AcceleratorHooksInterface: lazy
// init, device count and current device, default and new generators, pinned memory),
// answered once over a torch_core Backend. A backend's hooks derive from
// BackendHooks<the interface of its key> (at::PrivateUse1HooksInterface,
// at::CUDAHooksInterface, ...) and add only what that interface has beyond these.
#pragma once

#include <ATen/core/Generator.h>
#include <c10/core/Allocator.h>
#include <c10/core/Device.h>

#include "torch_core/csrc/device/backend.h"

namespace torch_core {

template <typename Interface>
class BackendHooks : public Interface {
 public:
  // How the hooks reach their backend; called on every question, so a backend made on
  // first use (torch_cuda's) is not made by registering its hooks.
  using BackendGetter = Backend& (*)();

  explicit BackendHooks(BackendGetter backend) : backend_(backend) {}

  bool isBuilt() const override { return true; }
  bool isAvailable() const override { return backend().device_count() > 0; }
  void init() const override { backend().initialize(); }
  // "Primary context" is CUDA's word for an initialised device; here it is the runtime.
  bool hasPrimaryContext(c10::DeviceIndex /*device_index*/) const override { return backend().initialized(); }

  c10::DeviceIndex deviceCount() const override { return static_cast<c10::DeviceIndex>(backend().device_count()); }
  c10::DeviceIndex getCurrentDevice() const override { return backend().current_device(); }
  void setCurrentDevice(c10::DeviceIndex device) const override {
    backend().guard().setDevice(c10::Device(backend().device_type(), device));
  }
  c10::DeviceIndex exchangeDevice(c10::DeviceIndex device) const override {
    return backend().guard().exchangeDevice(c10::Device(backend().device_type(), device)).index();
  }
  // "Maybe": do not initialise the device only to switch to it (CUDA's MaybeExchangeDevice).
  c10::DeviceIndex maybeExchangeDevice(c10::DeviceIndex device) const override {
    if (!backend().initialized()) return -1;
    return exchangeDevice(device);
  }

  // The runtime interface cannot map a pointer to its device (CUDA asks the driver); the
  // current device is right for every pointer the allocator handed out on it, which is
  // what from_blob and DLPack callers pass.
  at::Device getDeviceFromPtr(void* /*data*/) const override {
    return at::Device(backend().device_type(), backend().current_device());
  }
  // Asked of every CPU tensor by is_pinned(): no runtime is made only to say no.
  bool isPinnedPtr(const void* data) const override {
    return backend().initialized() && backend().host_allocator().is_pinned(data);
  }
  at::Allocator* getPinnedMemoryAllocator() const override {
    backend().initialize();
    return &backend().host_allocator();
  }

  const at::Generator& getDefaultGenerator(c10::DeviceIndex device_index = -1) const override {
    return backend().default_generator(device_index);
  }
  at::Generator getNewGenerator(c10::DeviceIndex device_index = -1) const override {
    return backend().new_generator(device_index);
  }

 protected:
  Backend& backend() const { return backend_(); }

 private:
  BackendGetter backend_;
};

}  // namespace torch_core
