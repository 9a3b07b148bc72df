#include "torch_core/csrc/device/device_guard.h"

#include <limits>

#include <c10/util/Exception.h>

#include "torch_core/csrc/device/gpu_trace.h"
#include "torch_core/csrc/device/accelerator_errors.h"
#include "torch_core/csrc/device/runtime_call.h"
#include "torch_core/csrc/runtime/current_device_scope.h"

namespace torch_core {

DeviceGuardImpl::DeviceGuardImpl(c10::DeviceType device_type, DeviceRuntime& runtime,
                                 StreamRegistry& streams, DeviceCachingAllocator& allocator)
    : device_type_(device_type), runtime_(runtime), streams_(streams), allocator_(allocator) {}

c10::DeviceIndex DeviceGuardImpl::checked_index(c10::DeviceIndex device) const {
  if (device < 0) return static_cast<c10::DeviceIndex>(runtime_call(device_type_, [&] { return runtime_.current_device(); }));
  const int count = deviceCount();
  if (device >= count) {
    throw_invalid_device(device_type_, c10::DeviceTypeName(device_type_, /*lower_case=*/true) + " device index " +
                                           std::to_string(device) + ": there " +
                                           (count == 1 ? "is 1 device" : "are " + std::to_string(count) + " devices") +
                                           (count > 0 ? ", valid indices are 0.." + std::to_string(count - 1) : ""));
  }
  return device;
}

c10::Device DeviceGuardImpl::exchangeDevice(c10::Device device) const {
  TORCH_CHECK(device.type() == device_type_, "expected a ", c10::DeviceTypeName(device_type_, true),
              " device, got ", device);
  const c10::Device previous = getDevice();
  if (device.index() >= 0 && device.index() != previous.index()) setDevice(device);
  return previous;
}

c10::Device DeviceGuardImpl::getDevice() const {
  return c10::Device(device_type_, static_cast<c10::DeviceIndex>(runtime_call(device_type_, [&] { return runtime_.current_device(); })));
}

void DeviceGuardImpl::setDevice(c10::Device device) const {
  TORCH_CHECK(device.type() == device_type_, "expected a ", c10::DeviceTypeName(device_type_, true),
              " device, got ", device);
  if (device.index() < 0) return;
  const c10::DeviceIndex index = checked_index(device.index());
  runtime_call(device_type_, [&] { runtime_.set_current_device(index); });
}

void DeviceGuardImpl::uncheckedSetDevice(c10::Device device) const noexcept {
  try {
    if (device.index() >= 0) runtime_.set_current_device(device.index());
  } catch (...) {
    // Called from destructors: an invalid index was rejected when it was first set.
  }
}

c10::DeviceIndex DeviceGuardImpl::deviceCount() const noexcept {
  try {
    const int count = runtime_.device_count();
    return static_cast<c10::DeviceIndex>(std::min(count, int{std::numeric_limits<c10::DeviceIndex>::max()}));
  } catch (...) {
    return 0;  // required not to throw: no usable device
  }
}

c10::Stream DeviceGuardImpl::getStream(c10::Device device) const {
  return runtime_call(device_type_, [&] { return streams_.current_stream(checked_index(device.index())); });
}

c10::Stream DeviceGuardImpl::getDefaultStream(c10::Device device) const {
  return runtime_call(device_type_, [&] { return streams_.default_stream(checked_index(device.index())); });
}

c10::Stream DeviceGuardImpl::getStreamFromGlobalPool(c10::Device device, bool is_high_priority) const {
  return runtime_call(device_type_, [&] {
    const StreamPriorityRange range = runtime_.stream_priority_range();
    return streams_.pool_stream(checked_index(device.index()), is_high_priority ? range.greatest : range.least);
  });
}

c10::Stream DeviceGuardImpl::getNewStream(c10::Device device, int priority) const {
  return runtime_call(device_type_, [&] { return streams_.pool_stream(checked_index(device.index()), priority); });
}

c10::Stream DeviceGuardImpl::exchangeStream(c10::Stream stream) const {
  return runtime_call(device_type_, [&] { return streams_.exchange_stream(stream); });
}

void* DeviceGuardImpl::getStreamNativeHandle(const c10::Stream stream) const {
  return runtime_call(device_type_, [&] { return streams_.handle(stream); });
}

bool DeviceGuardImpl::queryStream(const c10::Stream& stream) const {
  return runtime_call(device_type_, [&] {
    const CurrentDeviceScope on_stream_device(runtime_, stream.device_index());
    return runtime_.query_stream(streams_.handle(stream));
  });
}

void DeviceGuardImpl::synchronizeStream(const c10::Stream& stream) const {
  runtime_call(device_type_, [&] {
    const CurrentDeviceScope on_stream_device(runtime_, stream.device_index());
    const StreamHandle handle = streams_.handle(stream);
    gpu_trace::stream_synchronized(device_type_, handle);
    runtime_.synchronize_stream(handle);
  });
}

void DeviceGuardImpl::synchronizeDevice(const c10::DeviceIndex device_index) const {
  runtime_call(device_type_, [&] {
    const int device = checked_index(device_index);
    gpu_trace::device_synchronized(device_type_);
    runtime_.synchronize_device(device);
  });
}

void DeviceGuardImpl::record(void** event, const c10::Stream& stream, const c10::DeviceIndex device_index,
                             const c10::EventFlag flag) const {
  TORCH_CHECK(device_index == -1 || device_index == stream.device_index(), "Event device ",
              static_cast<int>(device_index), " does not match recording stream's device ",
              static_cast<int>(stream.device_index()), ".");  // stock CUDAEvent's message
  runtime_call(device_type_, [&] {
    if (*event == nullptr) {
      // PYTORCH_DEFAULT: no timing (cheaper); BACKEND_DEFAULT: timing (torch.Event(enable_timing=True)).
      *event = runtime_.create_event(stream.device_index(), flag == c10::EventFlag::BACKEND_DEFAULT);
      gpu_trace::event_created(device_type_, *event);
    }
    const CurrentDeviceScope on_stream_device(runtime_, stream.device_index());
    const StreamHandle handle = streams_.handle(stream);
    runtime_.record_event(*event, handle);
    gpu_trace::event_recorded(device_type_, *event, handle);
  });
}

void DeviceGuardImpl::block(void* event, const c10::Stream& stream) const {
  if (event == nullptr) return;  // never recorded: nothing to wait for
  runtime_call(device_type_, [&] {
    const CurrentDeviceScope on_stream_device(runtime_, stream.device_index());
    const StreamHandle handle = streams_.handle(stream);
    runtime_.stream_wait_event(handle, event);
    gpu_trace::event_waited(device_type_, event, handle);
  });
}

bool DeviceGuardImpl::queryEvent(void* event) const {
  if (event == nullptr) return true;
  return runtime_call(device_type_, [&] { return runtime_.query_event(event); });
}

void DeviceGuardImpl::synchronizeEvent(void* event) const {
  if (event == nullptr) return;
  gpu_trace::event_synchronized(device_type_, event);
  runtime_call(device_type_, [&] { runtime_.synchronize_event(event); });
}

double DeviceGuardImpl::elapsedTime(void* start, void* end, const c10::DeviceIndex /*device_index*/) const {
  TORCH_CHECK(start != nullptr && end != nullptr,
              "both events must be recorded before calculating elapsed time");
  return runtime_call(device_type_, [&] { return static_cast<double>(runtime_.elapsed_ms(start, end)); });
}

void DeviceGuardImpl::destroyEvent(void* event, const c10::DeviceIndex /*device_index*/) const noexcept {
  if (event == nullptr) return;
  try {
    gpu_trace::event_deleted(device_type_, event);
    runtime_.destroy_event(event);
  } catch (...) {
    // noexcept by contract; a runtime already torn down has nothing left to free.
  }
}

void DeviceGuardImpl::recordDataPtrOnStream(const c10::DataPtr& data_ptr, const c10::Stream& stream) const {
  allocator_.recordStream(data_ptr, stream);
}

}  // namespace torch_core
