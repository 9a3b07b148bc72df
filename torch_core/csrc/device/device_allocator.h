// c10::DeviceAllocator over torch_core's CachingAllocator, for one device type.
//
// It owns the choices the torch-free allocator leaves to its caller: the device (the
// runtime's current device) and the stream (the thread's current stream of the
// StreamRegistry), DataPtr and c10::Stream, c10's statistics struct, and the mapping of
// torch_core::OutOfMemoryError to c10::OutOfMemoryError (torch.OutOfMemoryError).
// Registered with c10::SetAllocator it makes at::empty on the device, torch.accelerator's
// memory calls and storage resizing work.
//
// The CachingAllocator is created on first use (it sizes itself by the runtime's device
// count, which would otherwise initialise the device at import).
//
// Before that first use a pluggable allocator may replace it
// (torch.cuda.memory.change_current_allocator): every request then goes to the
// SegmentSource's functions and every free straight back, uncached; what only the caching
// allocator has (statistics, snapshots, pools, history) is refused, as stock's
// CUDAPluggableAllocator refuses it.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <c10/core/Allocator.h>
#include <c10/core/CachingDeviceAllocator.h>
#include <c10/core/DeviceType.h>
#include <c10/core/Stream.h>

#include "torch_core/csrc/device/stream_registry.h"
#include "torch_core/csrc/runtime/allocator_snapshot.h"
#include "torch_core/csrc/runtime/caching_allocator.h"
#include "torch_core/csrc/runtime/device_runtime.h"
#include "torch_core/csrc/device/allocator_settings.h"
#include "torch_core/csrc/runtime/segment_source.h"

namespace torch_core {

class DeviceCachingAllocator final : public c10::DeviceAllocator {
 public:
  // `config_env` is the variable the allocator settings are read from
  // ("PYTORCH_SIM_ALLOC_CONF"); `runtime` and `streams` must outlive the allocator.
  // The device type's Backend owns it: the raw deleter finds it there, by type.
  DeviceCachingAllocator(c10::DeviceType device_type, DeviceRuntime& runtime,
                         StreamRegistry& streams, std::string config_env);

  // --- c10::Allocator ----------------------------------------------------------------
  // On the current device and the thread's current stream there.
  c10::DataPtr allocate(std::size_t bytes) override;
  c10::DeleterFnPtr raw_deleter() const override;
  // Device-to-device, synchronous (as the CUDA allocator's).
  void copy_data(void* dest, const void* src, std::size_t count) const override;

  // --- c10::DeviceAllocator ----------------------------------------------------------
  bool initialized() override;
  void emptyCache(c10::MempoolId_t mempool_id = {0, 0}) override;
  void recordStream(const c10::DataPtr& ptr, c10::Stream stream) override;
  c10::CachingDeviceAllocator::DeviceStats getDeviceStats(c10::DeviceIndex device) override;
  void resetAccumulatedStats(c10::DeviceIndex device) override;
  void resetPeakStats(c10::DeviceIndex device) override;
  std::pair<std::size_t, std::size_t> getMemoryInfo(c10::DeviceIndex device) override;

  // --- Beyond c10 --------------------------------------------------------------------
  // `bytes` on `device` for use on `stream` (what allocate() does with explicit choices).
  c10::DataPtr allocate_on(c10::DeviceIndex device, std::size_t bytes, StreamHandle stream);
  // The memory_stats() dict ("allocated_bytes.all.current", ...).
  std::map<std::string, int64_t> stats_dict(c10::DeviceIndex device);
  std::vector<SegmentInfo> snapshot();
  void set_memory_fraction(c10::DeviceIndex device, double fraction);
  // True when `ptr` was made by this allocator (its deleter is ours).
  bool owns(const c10::DataPtr& ptr) const;
  // Returns a pointer to the cache (the raw deleter).
  void free(void* ptr);
  c10::DeviceType device_type() const { return device_type_; }
  // The torch-free allocator underneath (created on first use), for what c10's
  // interface has no call for (memory history). Refused under a pluggable allocator.
  CachingAllocator& core();
  // Makes `source` the allocator of every request (null: the caching allocator again).
  // Refused once memory was allocated or the caching allocator was used.
  void set_current_source(std::shared_ptr<const SegmentSource> source);
  // The pluggable allocator in use; null: the caching allocator.
  std::shared_ptr<const SegmentSource> current_source() const;

 private:
  c10::DeviceIndex resolve(c10::DeviceIndex device) const;
  c10::DataPtr allocate_from_source(std::shared_ptr<const SegmentSource> source, c10::DeviceIndex device,
                                    std::size_t bytes, StreamHandle stream);
  // Gives `ptr` back to the pluggable allocator; false when it did not come from there.
  bool free_to_source(void* ptr);

  // What a pluggable allocator's free needs to be told of each live allocation.
  struct SourceAllocation {
    std::shared_ptr<const SegmentSource> source;
    std::size_t bytes;
    int device;
    StreamHandle stream;
  };

  const c10::DeviceType device_type_;
  DeviceRuntime& runtime_;
  StreamRegistry& streams_;
  const std::string config_env_;
  std::once_flag core_once_;
  std::unique_ptr<CachingAllocator> core_;
  AllocatorSettings settings_;  // run-time changes, applied to core_ once it exists
  std::atomic<bool> has_source_{false};  // the hot path's check for a pluggable allocator
  mutable std::mutex source_mutex_;
  std::shared_ptr<const SegmentSource> source_;  // guarded by source_mutex_
  bool source_used_ = false;                      // guarded by source_mutex_
  std::unordered_map<void*, SourceAllocation> source_allocations_;  // guarded by source_mutex_
};

}  // namespace torch_core
