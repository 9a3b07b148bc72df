// A caching allocator of page-locked (pinned) host memory over
// DeviceRuntime::allocate_host_pinned, as PyTorch's CachingHostAllocator: pinning is slow,
// so freed blocks are kept and reused.
//
// - Sizes are rounded up to a power of two; a block is reused for any request of its size
//   class (no splitting: pinned buffers are staging areas for whole copies).
// - record_stream(ptr, device, stream): an async copy on `stream` still reads or writes
//   the block. Its free records an event on each such stream, and the block is reused
//   only after they complete, so a copy in flight never sees its buffer handed out.
// - When the runtime cannot pin more, cached blocks are released and the request retried.
//
// Thread-safe (one mutex; the runtime is called outside it when pinning new memory).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "torch_core/csrc/runtime/allocator_stats.h"
#include "torch_core/csrc/runtime/device_runtime.h"

namespace torch_core {

// Time spent in the runtime's pinning calls, in microseconds (stock's DurationStat;
// the average is total / count).
struct DurationStat {
  int64_t total = 0;
  int64_t max = 0;
  int64_t min = 0;
  int64_t count = 0;

  void add(int64_t microseconds) {
    if (count == 0 || microseconds < min) min = microseconds;
    if (microseconds > max) max = microseconds;
    total += microseconds;
    ++count;
  }
};

struct HostAllocatorStats {
  Stat allocation;       // blocks handed out
  Stat segment;          // pinned allocations held (one per block)
  Stat allocated_bytes;
  Stat reserved_bytes;   // pinned bytes held, cached or handed out
  int64_t num_host_alloc = 0;  // allocate_host_pinned calls that succeeded
  int64_t num_host_free = 0;   // free_host_pinned calls
  DurationStat host_alloc_time;  // in successful allocate_host_pinned calls
  DurationStat host_free_time;   // in free_host_pinned calls
};

class HostPinnedAllocator {
 public:
  // `runtime` must outlive the allocator.
  explicit HostPinnedAllocator(DeviceRuntime& runtime);
  // Gives every block back to the runtime, handed out or not, after waiting for events.
  ~HostPinnedAllocator();
  HostPinnedAllocator(const HostPinnedAllocator&) = delete;
  HostPinnedAllocator& operator=(const HostPinnedAllocator&) = delete;

  // Pinned memory of at least `bytes` bytes; nullptr for 0. Throws OutOfMemoryError when
  // the runtime returns nullptr even after the cache was released (a runtime that throws
  // instead has its error passed on).
  void* allocate(std::size_t bytes);
  // Caches `ptr` (nullptr is ignored); throws RuntimeError for a pointer not handed out.
  void free(void* ptr);
  // Marks `ptr` as used by work on `stream` of `device`.
  void record_stream(void* ptr, int device, StreamHandle stream);
  // Waits for pending events, then gives every cached block back to the runtime.
  void empty_cache();

  HostAllocatorStats stats() const;
  void reset_peak_stats();
  void reset_accumulated_stats();

 private:
  struct Block {
    Block(std::size_t bytes, void* address) : size(bytes), ptr(address) {}
    std::size_t size;
    void* ptr;
    bool allocated = true;
    int event_count = 0;
    std::set<std::pair<int, StreamHandle>> streams;  // (device, stream) it was used on
  };
  struct PendingEvent {
    int device;
    EventHandle event;
    Block* block;
  };
  static constexpr std::size_t kSizeClasses = 64;  // by log2 of the (power of two) size

  Block* take_cached(std::size_t size);  // requires mutex_
  void cache(Block* block);              // requires mutex_
  void process_events();                 // requires mutex_
  void synchronize_events();             // requires mutex_
  std::size_t release_cached();          // requires mutex_; returns the bytes released

  DeviceRuntime& runtime_;
  mutable std::mutex mutex_;
  std::unordered_map<void*, Block*> blocks_;  // every block, by pointer
  std::array<std::vector<Block*>, kSizeClasses> free_blocks_;
  std::vector<PendingEvent> pending_;
  std::unordered_map<int, std::vector<EventHandle>> spare_events_;  // by device
  HostAllocatorStats stats_;
};

}  // namespace torch_core
