#include "torch_core/csrc/device/ipc_event.h"

#include <c10/util/Exception.h>

#include "torch_core/csrc/device/backend.h"
#include "torch_core/csrc/device/runtime_call.h"
#include "torch_core/csrc/runtime/current_device_scope.h"

namespace torch_core {

IpcEvent::IpcEvent(Backend& backend, int device) : backend_(backend), device_(device), opened_(false) {
  const CurrentDeviceScope scope(backend_.runtime(), device_);
  event_ = runtime_call(backend_.device_type(), [&] { return backend_.runtime().create_ipc_event(device_); });
}

IpcEvent::IpcEvent(Backend& backend, int device, const std::string& handle)
    : backend_(backend), device_(device), opened_(true) {
  const CurrentDeviceScope scope(backend_.runtime(), device_);
  event_ = runtime_call(backend_.device_type(), [&] { return backend_.runtime().ipc_open_event(device_, handle); });
}

IpcEvent::~IpcEvent() {
  try {
    const CurrentDeviceScope scope(backend_.runtime(), device_);
    backend_.runtime().destroy_event(event_);
  } catch (...) {  // a destructor must not throw; the runtime reclaims the event with the process
  }
}

void IpcEvent::check_device_of(const c10::Stream& stream, const char* call) const {
  TORCH_CHECK(stream.device_type() == backend_.device_type() && stream.device_index() == device_, "Event device ",
              device_, " does not match ", call, " stream's device ", static_cast<int>(stream.device_index()), ".");
}

void IpcEvent::record(const c10::Stream& stream) {
  TORCH_CHECK(!opened_, "An event opened from another process's IPC handle can only be waited on here; record "
              "it in the process that created it");
  check_device_of(stream, "recording");
  const CurrentDeviceScope scope(backend_.runtime(), device_);
  runtime_call(backend_.device_type(),
               [&] { backend_.runtime().record_event(event_, backend_.streams().handle(stream)); });
}

void IpcEvent::wait(const c10::Stream& stream) {
  const CurrentDeviceScope scope(backend_.runtime(), static_cast<int>(stream.device_index()));
  runtime_call(backend_.device_type(),
               [&] { backend_.runtime().stream_wait_event(backend_.streams().handle(stream), event_); });
}

bool IpcEvent::query() {
  const CurrentDeviceScope scope(backend_.runtime(), device_);
  return runtime_call(backend_.device_type(), [&] { return backend_.runtime().query_event(event_); });
}

void IpcEvent::synchronize() {
  const CurrentDeviceScope scope(backend_.runtime(), device_);
  runtime_call(backend_.device_type(), [&] { backend_.runtime().synchronize_event(event_); });
}

std::string IpcEvent::handle() {
  const CurrentDeviceScope scope(backend_.runtime(), device_);
  return runtime_call(backend_.device_type(), [&] { return backend_.runtime().ipc_event_handle(event_); });
}

}  // namespace torch_core
