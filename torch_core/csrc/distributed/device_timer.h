// DDP's timer for a device type: the Reducer makes one from c10d::TimerRegistry for the
// device its parameters live on, and the CPU wheel registers only the CPU's (stock's CUDA
// timer is in libtorch_cuda). Without it DistributedDataParallel on the device fails its
// first forward. Events are recorded on the device's current stream alongside the host
// timestamps, and the device time between two of them is what DDP logs.
#pragma once

#include <array>
#include <optional>

#include <c10/core/Device.h>
#include <c10/core/Event.h>
#include <torch/csrc/distributed/c10d/reducer_timer.hpp>

namespace torch_core {

class DeviceTimer final : public c10d::Timer {
 public:
  explicit DeviceTimer(c10::Device device);

  void record(Event event) override;
  std::optional<int64_t> measureDifference(Event start, Event end) override;

 private:
  c10::Event& device_event(Event event);

  c10::Device device_;
  std::array<c10::Event, 5> events_;  // one per c10d::Timer::Event
};

// Registers DeviceTimer as DDP's timer for `device_type` (once; later calls do nothing).
void register_ddp_timer(c10::DeviceType device_type);

}  // namespace torch_core
