// Makes a device current for a scope and restores the caller's device after: how callers
// of the runtime keep its current-device rule (device_runtime.h) around stream and event
// calls, as c10's CUDAGuard does around stock CUDA's.
#pragma once

#include "torch_core/csrc/runtime/device_runtime.h"

namespace torch_core {

class CurrentDeviceScope {
 public:
  CurrentDeviceScope(DeviceRuntime& runtime, int device)
      : runtime_(runtime), previous_(runtime.current_device()), changed_(previous_ != device) {
    if (changed_) runtime_.set_current_device(device);
  }
  ~CurrentDeviceScope() {
    // A destructor must not throw; setting back a device that was current a moment ago
    // fails only when the runtime is already broken, which its next call reports.
    if (!changed_) return;
    try {
      runtime_.set_current_device(previous_);
    } catch (...) {
    }
  }
  CurrentDeviceScope(const CurrentDeviceScope&) = delete;
  CurrentDeviceScope& operator=(const CurrentDeviceScope&) = delete;

 private:
  DeviceRuntime& runtime_;
  const int previous_;
  const bool changed_;
};

}  // namespace torch_core
