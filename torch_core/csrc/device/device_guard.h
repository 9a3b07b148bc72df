// c10's device guard for one device type, over a DeviceRuntime: current device, streams
// (through the StreamRegistry) and events (runtime EventHandles), so DeviceGuard,
// StreamGuard, torch.Stream, torch.Event, torch.accelerator and the autograd engine's
// device threads work on the device. Registered with c10 for its device type.
#pragma once

#include <c10/core/Device.h>
#include <c10/core/DeviceType.h>
#include <c10/core/Stream.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>

#include "torch_core/csrc/device/device_allocator.h"
#include "torch_core/csrc/device/stream_registry.h"
#include "torch_core/csrc/runtime/device_runtime.h"

namespace torch_core {

class DeviceGuardImpl final : public c10::impl::DeviceGuardImplInterface {
 public:
  // All three must outlive the guard (c10 keeps the guard for the life of the process).
  DeviceGuardImpl(c10::DeviceType device_type, DeviceRuntime& runtime, StreamRegistry& streams,
                  DeviceCachingAllocator& allocator);

  c10::DeviceType type() const override { return device_type_; }
  c10::Device exchangeDevice(c10::Device device) const override;
  c10::Device getDevice() const override;
  void setDevice(c10::Device device) const override;
  void uncheckedSetDevice(c10::Device device) const noexcept override;
  c10::DeviceIndex deviceCount() const noexcept override;

  c10::Stream getStream(c10::Device device) const override;
  c10::Stream getDefaultStream(c10::Device device) const override;
  c10::Stream getStreamFromGlobalPool(c10::Device device, bool is_high_priority = false) const override;
  c10::Stream getNewStream(c10::Device device, int priority = 0) const override;
  c10::Stream exchangeStream(c10::Stream stream) const override;
  void* getStreamNativeHandle(const c10::Stream stream) const override;
  bool queryStream(const c10::Stream& stream) const override;
  void synchronizeStream(const c10::Stream& stream) const override;
  void synchronizeDevice(const c10::DeviceIndex device_index) const override;

  void record(void** event, const c10::Stream& stream, const c10::DeviceIndex device_index,
              const c10::EventFlag flag) const override;
  void block(void* event, const c10::Stream& stream) const override;
  bool queryEvent(void* event) const override;
  void synchronizeEvent(void* event) const override;
  double elapsedTime(void* start, void* end, const c10::DeviceIndex device_index) const override;
  void destroyEvent(void* event, const c10::DeviceIndex device_index) const noexcept override;

  void recordDataPtrOnStream(const c10::DataPtr& data_ptr, const c10::Stream& stream) const override;

  // Checks `device` is a valid index of this type (-1: the current device) and returns it.
  c10::DeviceIndex checked_index(c10::DeviceIndex device) const;

 private:
  const c10::DeviceType device_type_;
  DeviceRuntime& runtime_;
  StreamRegistry& streams_;
  DeviceCachingAllocator& allocator_;
};

}  // namespace torch_core
