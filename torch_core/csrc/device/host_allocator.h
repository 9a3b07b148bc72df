// Pinned (page-locked) host memory for one device type: the allocator behind
// tensor.pin_memory() and torch.empty(..., pin_memory=True), and isPinnedPtr.
//
// A c10::Allocator face over torch_core's torch-free HostPinnedAllocator (which caches
// blocks and delays their reuse until the streams that copied from them are done): memory
// from the runtime's allocate_host_pinned, so copies from and to it are truly
// asynchronous. It also remembers which ranges are live, for isPinnedPtr.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

#include <ATen/core/CachingHostAllocator.h>
#include <c10/core/Allocator.h>
#include <c10/core/DeviceType.h>
#include <c10/core/Stream.h>

#include "torch_core/csrc/runtime/device_runtime.h"
#include "torch_core/csrc/runtime/host_pinned_allocator.h"

namespace torch_core {

// Also the device type's at::HostAllocator (at::setHostAllocator), which
// torch.accelerator's host-memory functions reach.
class PinnedHostAllocator final : public at::HostAllocator {
 public:
  // The device type's Backend owns it: the raw deleter finds it there, by type.
  PinnedHostAllocator(c10::DeviceType device_type, DeviceRuntime& runtime);

  c10::DataPtr allocate(std::size_t bytes) override;  // a CPU DataPtr
  c10::DeleterFnPtr raw_deleter() const override;
  void copy_data(void* dest, const void* src, std::size_t count) const override;

  // True when `ptr` points into a live block of this allocator.
  bool is_pinned(const void* ptr) const;
  void free(void* ptr);
  // The start of the live block `ptr` points into, or nullptr.
  void* block_of(const void* ptr) const;
  // An async copy on `stream` of `device` uses the block that `ptr` points into (any
  // address inside it): the block is not reused before that copy has run. No-op for a
  // pointer outside this allocator's live blocks.
  void record_stream(const void* ptr, int device, StreamHandle stream);
  HostPinnedAllocator& core() { return core_; }

  // at::HostAllocator
  bool record_event(void* ptr, void* ctx, c10::Stream stream) override;
  void empty_cache() override;
  at::HostStats get_stats() override;
  void reset_accumulated_stats() override;
  void reset_peak_stats() override;

 private:
  const c10::DeviceType device_type_;
  HostPinnedAllocator core_;
  mutable std::mutex mutex_;
  std::map<std::uintptr_t, std::size_t> blocks_;  // live blocks: start -> requested size
};

}  // namespace torch_core
