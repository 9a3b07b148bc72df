// Streams of one device type as c10 sees them: c10::StreamId <-> the runtime's StreamHandle.
//
// The scheme is CUDA's (c10/cuda/CUDAStream.cpp), over any DeviceRuntime:
// - id 0 is each device's default stream (the runtime's default_stream()).
// - Pool streams: per device and per priority level, kStreamsPerPool streams handed out
//   round-robin, each created by the runtime the first time its slot comes up, and never
//   destroyed (c10::Stream is a value that is copied around freely, so a stream it names
//   must stay valid for the life of the process).
// - Each thread has its own current stream per device, the default stream until set.
//
// Ids: 1 + level * kStreamsPerPool + slot, where level 0 is the least priority and
// level L is L steps towards the greatest (priorities follow CUDA: lower is higher).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include <c10/core/Device.h>
#include <c10/core/DeviceType.h>
#include <c10/core/Stream.h>

#include "torch_core/csrc/runtime/device_runtime.h"

namespace torch_core {

class StreamRegistry {
 public:
  static constexpr int kStreamsPerPool = 32;
  static constexpr int kMaxPriorityLevels = 8;

  // `runtime` must outlive the registry. Nothing is asked of it until a stream is needed.
  StreamRegistry(c10::DeviceType device_type, DeviceRuntime& runtime);
  StreamRegistry(const StreamRegistry&) = delete;
  StreamRegistry& operator=(const StreamRegistry&) = delete;

  c10::DeviceType device_type() const { return device_type_; }

  c10::Stream default_stream(c10::DeviceIndex device);
  // The next stream of the pool for `priority` (clamped into the runtime's range).
  c10::Stream pool_stream(c10::DeviceIndex device, int priority);
  // The calling thread's current stream on `device`.
  c10::Stream current_stream(c10::DeviceIndex device);
  // Makes `stream` the calling thread's current stream on its device; returns the
  // previous one. The current device does not change.
  c10::Stream exchange_stream(const c10::Stream& stream);
  // A stream the runtime made for someone else (torch.cuda.ExternalStream: a library's
  // cudaStream_t), as a c10::Stream of `device`. The same handle gives the same stream;
  // its ids are negative, apart from the pool's. Not checked: as cudart, the handle
  // must be a live stream of that device.
  c10::Stream external_stream(c10::DeviceIndex device, StreamHandle handle);

  // The runtime handle behind a stream this registry handed out; throws c10::Error for
  // an id it never handed out or a stream of another device type.
  StreamHandle handle(const c10::Stream& stream);
  StreamHandle current_handle(c10::DeviceIndex device) { return handle(current_stream(device)); }
  // The runtime priority of the stream (the least priority for the default stream).
  int priority(const c10::Stream& stream);

 private:
  struct Pool {
    std::atomic<uint32_t> next{0};
    std::array<std::atomic<StreamHandle>, kStreamsPerPool> slots{};
  };
  struct DeviceStreams {
    std::array<Pool, kMaxPriorityLevels> pools;
    std::vector<StreamHandle> external;  // id -(i + 1); guarded by external_mutex_
  };

  c10::DeviceIndex checked_index(c10::DeviceIndex device);
  void ensure_devices();
  int levels();
  c10::Stream make(c10::DeviceIndex device, c10::StreamId id) const;

  const c10::DeviceType device_type_;
  DeviceRuntime& runtime_;
  std::once_flag devices_once_;
  std::vector<std::unique_ptr<DeviceStreams>> devices_;
  std::mutex create_mutex_;  // serialises stream creation
  mutable std::mutex external_mutex_;
};

}  // namespace torch_core
