#include "torch_core/csrc/device/stream_registry.h"

#include <algorithm>
#include <string>
#include <unordered_map>

#include <c10/util/Exception.h>

#include "torch_core/csrc/device/gpu_trace.h"
#include "torch_core/csrc/device/accelerator_errors.h"

namespace torch_core {

namespace {

// Current stream ids, per registry (a process may hold several backends) and device.
thread_local std::unordered_map<const StreamRegistry*, std::vector<c10::StreamId>> current_ids;

std::vector<c10::StreamId>& thread_current_ids(const StreamRegistry* registry, std::size_t devices) {
  auto& ids = current_ids[registry];
  if (ids.size() < devices) ids.resize(devices, 0);
  return ids;
}

}  // namespace

StreamRegistry::StreamRegistry(c10::DeviceType device_type, DeviceRuntime& runtime)
    : device_type_(device_type), runtime_(runtime) {}

void StreamRegistry::ensure_devices() {
  std::call_once(devices_once_, [this] {
    const int count = runtime_.device_count();
    devices_.reserve(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) devices_.push_back(std::make_unique<DeviceStreams>());
  });
}

c10::DeviceIndex StreamRegistry::checked_index(c10::DeviceIndex device) {
  ensure_devices();
  if (device < 0) device = static_cast<c10::DeviceIndex>(runtime_.current_device());
  if (device < 0 || static_cast<std::size_t>(device) >= devices_.size()) {
    throw_invalid_device(device_type_, c10::DeviceTypeName(device_type_, /*lower_case=*/true) + " device index " +
                                           std::to_string(device) + ": there are " +
                                           std::to_string(devices_.size()) + " devices");
  }
  return device;
}

int StreamRegistry::levels() {
  const StreamPriorityRange range = runtime_.stream_priority_range();
  return std::min(range.least - range.greatest + 1, kMaxPriorityLevels);
}

c10::Stream StreamRegistry::make(c10::DeviceIndex device, c10::StreamId id) const {
  return c10::Stream(c10::Stream::UNSAFE, c10::Device(device_type_, device), id);
}

c10::Stream StreamRegistry::default_stream(c10::DeviceIndex device) {
  return make(checked_index(device), 0);
}

c10::Stream StreamRegistry::pool_stream(c10::DeviceIndex device, int priority) {
  device = checked_index(device);
  const StreamPriorityRange range = runtime_.stream_priority_range();
  const int clamped = std::clamp(priority, range.greatest, range.least);
  const int level = std::min(range.least - clamped, levels() - 1);
  Pool& pool = devices_[static_cast<std::size_t>(device)]->pools[static_cast<std::size_t>(level)];
  const uint32_t slot = pool.next.fetch_add(1, std::memory_order_relaxed) % kStreamsPerPool;
  if (pool.slots[slot].load(std::memory_order_acquire) == nullptr) {
    std::lock_guard<std::mutex> lock(create_mutex_);
    if (pool.slots[slot].load(std::memory_order_relaxed) == nullptr) {
      const StreamHandle created = runtime_.create_stream(device, range.least - level);
      pool.slots[slot].store(created, std::memory_order_release);
      gpu_trace::stream_created(device_type_, created);
    }
  }
  return make(device, 1 + static_cast<c10::StreamId>(level) * kStreamsPerPool + slot);
}

c10::Stream StreamRegistry::current_stream(c10::DeviceIndex device) {
  device = checked_index(device);
  return make(device, thread_current_ids(this, devices_.size())[static_cast<std::size_t>(device)]);
}

c10::Stream StreamRegistry::exchange_stream(const c10::Stream& stream) {
  handle(stream);  // validates type, device and id
  auto& ids = thread_current_ids(this, devices_.size());
  const auto index = static_cast<std::size_t>(stream.device_index());
  const c10::Stream previous = make(stream.device_index(), ids[index]);
  ids[index] = stream.id();
  return previous;
}

c10::Stream StreamRegistry::external_stream(c10::DeviceIndex device, StreamHandle handle) {
  device = checked_index(device);
  TORCH_CHECK(handle != nullptr, "an external stream needs a stream handle, got 0 (for the "
              "default stream use default_stream())");
  std::lock_guard<std::mutex> lock(external_mutex_);
  auto& external = devices_[static_cast<std::size_t>(device)]->external;
  auto it = std::find(external.begin(), external.end(), handle);
  if (it == external.end()) it = external.insert(external.end(), handle);
  return make(device, -static_cast<c10::StreamId>(it - external.begin()) - 1);
}

StreamHandle StreamRegistry::handle(const c10::Stream& stream) {
  TORCH_CHECK(stream.device_type() == device_type_, "expected a ",
              c10::DeviceTypeName(device_type_, /*lower_case=*/true), " stream, got a ",
              c10::DeviceTypeName(stream.device_type(), /*lower_case=*/true), " one");
  const c10::DeviceIndex device = checked_index(stream.device_index());
  const c10::StreamId id = stream.id();
  if (id == 0) return runtime_.default_stream(device);
  if (id < 0) {
    std::lock_guard<std::mutex> lock(external_mutex_);
    const auto& external = devices_[static_cast<std::size_t>(device)]->external;
    const auto index = static_cast<std::size_t>(-(id + 1));
    TORCH_CHECK(index < external.size(), "unknown ", c10::DeviceTypeName(device_type_, true),
                " stream id ", id, " on device ", static_cast<int>(device),
                " (not an external stream of this backend)");
    return external[index];
  }
  const c10::StreamId level = (id - 1) / kStreamsPerPool;
  const c10::StreamId slot = (id - 1) % kStreamsPerPool;
  StreamHandle handle = nullptr;
  if (id > 0 && level < levels()) {
    handle = devices_[static_cast<std::size_t>(device)]
                 ->pools[static_cast<std::size_t>(level)]
                 .slots[static_cast<std::size_t>(slot)]
                 .load(std::memory_order_acquire);
  }
  TORCH_CHECK(handle != nullptr, "unknown ", c10::DeviceTypeName(device_type_, true),
              " stream id ", id, " on device ", static_cast<int>(device),
              " (not handed out by this backend's stream pool)");
  return handle;
}

int StreamRegistry::priority(const c10::Stream& stream) {
  handle(stream);
  const StreamPriorityRange range = runtime_.stream_priority_range();
  if (stream.id() <= 0) return range.least;  // default and external streams
  return range.least - static_cast<int>((stream.id() - 1) / kStreamsPerPool);
}

}  // namespace torch_core
