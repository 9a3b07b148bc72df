#include "torch_core/csrc/distributed/device_timer.h"

#include <memory>

#include <c10/core/DeviceGuard.h>
#include <c10/core/impl/VirtualGuardImpl.h>

namespace torch_core {
namespace {

c10::Event timing_event(c10::DeviceType type) {
  return c10::Event(type, c10::EventFlag::BACKEND_DEFAULT);  // BACKEND_DEFAULT times
}

}  // namespace

DeviceTimer::DeviceTimer(c10::Device device)
    : device_(device),
      events_{timing_event(device.type()), timing_event(device.type()),
              timing_event(device.type()), timing_event(device.type()),
              timing_event(device.type())} {}

c10::Event& DeviceTimer::device_event(Event event) {
  return events_.at(static_cast<size_t>(event));
}

void DeviceTimer::record(Event event) {
  c10d::Timer::record(event);  // the host timestamp
  c10::DeviceGuard guard(device_);
  device_event(event).record(c10::impl::VirtualGuardImpl(device_.type()).getStream(device_));
}

std::optional<int64_t> DeviceTimer::measureDifference(Event start, Event end) {
  c10::Event& start_event = device_event(start);
  c10::Event& end_event = device_event(end);
  // DDP asks at the next forward about events a no_sync iteration never recorded.
  if (!start_event.was_marked_for_recording() || !end_event.was_marked_for_recording()) {
    return std::nullopt;
  }
  c10::DeviceGuard guard(device_);
  start_event.synchronize();
  end_event.synchronize();
  const double milliseconds = start_event.elapsedTime(end_event);
  if (milliseconds < 0) {  // the end is from an earlier iteration than the start
    return std::nullopt;
  }
  return static_cast<int64_t>(milliseconds * 1e6);
}

void register_ddp_timer(c10::DeviceType device_type) {
  auto* registry = c10d::TimerRegistry();
  if (!registry->Has(device_type)) {
    registry->Register(device_type, [](c10::Device device) -> std::unique_ptr<c10d::Timer> {
      return std::make_unique<DeviceTimer>(device);
    });
  }
}

}  // namespace torch_core
