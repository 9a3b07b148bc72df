// at::PrivateUse1HooksInterface over a torch_core Backend: what ATen asks of the
// PrivateUse1 device outside the dispatcher (lazy init, default and new generators,
// pinned memory, device count and current device, storage resizing).
//
// Every answer comes from the Backend's pieces, so the CUDA hooks (at::CUDAHooksInterface,
// another interface with the same questions) can be written over the same Backend.
#pragma once

#include <ATen/core/Generator.h>
#include <ATen/detail/PrivateUse1HooksInterface.h>
#include <c10/core/Allocator.h>
#include <c10/core/Device.h>
#include <c10/core/Storage.h>

#include "torch_core/csrc/device/backend.h"

namespace torch_core {

class PrivateUse1Hooks final : public at::PrivateUse1HooksInterface {
 public:
  explicit PrivateUse1Hooks(Backend& backend);

  bool isBuilt() const override { return true; }
  bool isAvailable() const override;
  void init() const override;
  bool hasPrimaryContext(c10::DeviceIndex device_index) const override;

  const at::Generator& getDefaultGenerator(c10::DeviceIndex device_index) const override;
  at::Generator getNewGenerator(c10::DeviceIndex device_index = -1) const override;

  at::Device getDeviceFromPtr(void* data) const override;
  bool isPinnedPtr(const void* data) const override;
  at::Allocator* getPinnedMemoryAllocator() const override;

  c10::DeviceIndex deviceCount() const override;
  void setCurrentDevice(c10::DeviceIndex device) const override;
  c10::DeviceIndex getCurrentDevice() const override;
  c10::DeviceIndex exchangeDevice(c10::DeviceIndex device) const override;
  c10::DeviceIndex maybeExchangeDevice(c10::DeviceIndex device) const override;

  void resizePrivateUse1Bytes(const c10::Storage& storage, size_t new_bytes) const override;

 private:
  Backend& backend_;
};

}  // namespace torch_core
