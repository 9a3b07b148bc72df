// An interprocess event of a torch_core backend (torch.cuda.Event(interprocess=True), and
// one opened from another process's handle by Event.from_ipc_handle): the runtime's IPC
// event behind torch.cuda.Event's calls, which torch._C.Event cannot make.
#pragma once

#include <string>

#include <c10/core/Stream.h>

#include "torch_core/csrc/runtime/device_runtime.h"

namespace torch_core {

class Backend;

class IpcEvent {
 public:
  // A new interprocess event of `device`.
  IpcEvent(Backend& backend, int device);
  // Another process's event, from IpcEvent::handle() there.
  IpcEvent(Backend& backend, int device, const std::string& handle);
  ~IpcEvent();
  IpcEvent(const IpcEvent&) = delete;
  IpcEvent& operator=(const IpcEvent&) = delete;

  int device() const { return device_; }
  // Stock CUDAEvent's checks: the stream must be of the event's device.
  void record(const c10::Stream& stream);
  void wait(const c10::Stream& stream);
  bool query();
  void synchronize();
  std::string handle();

 private:
  void check_device_of(const c10::Stream& stream, const char* call) const;
  Backend& backend_;
  const int device_;
  const bool opened_;  // from another process: it cannot be recorded here
  EventHandle event_ = nullptr;
};

}  // namespace torch_core
