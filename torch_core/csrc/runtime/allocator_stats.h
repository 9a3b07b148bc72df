// Statistics of the caching device allocator, in the shape of PyTorch's memory_stats()
// (c10::CachingDeviceAllocator::DeviceStats), so an adapter copies them field by field.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

namespace torch_core {

struct Stat {
  int64_t current = 0;
  int64_t peak = 0;
  int64_t allocated = 0;  // total ever added
  int64_t freed = 0;      // total ever removed

  void increase(int64_t amount) {
    current += amount;
    if (current > peak) peak = current;
    allocated += amount;
  }
  void decrease(int64_t amount) {
    current -= amount;
    freed += amount;
  }
  void reset_accumulated() {
    allocated = 0;
    freed = 0;
  }
  void reset_peak() { peak = current; }
};

// Indexed by StatPool: every pool together, the small pool, the large pool.
enum StatPool : std::size_t { kAggregatePool = 0, kSmallPool = 1, kLargePool = 2 };
using StatArray = std::array<Stat, 3>;

struct DeviceStats {
  StatArray allocation;            // blocks handed out and not yet freed
  StatArray segment;               // runtime allocations held
  StatArray active;                // allocated blocks, or freed ones awaiting stream events
  StatArray inactive_split;        // free blocks that are part of a split segment
  StatArray allocated_bytes;
  StatArray reserved_bytes;        // bytes held from the runtime
  StatArray active_bytes;
  StatArray inactive_split_bytes;
  StatArray requested_bytes;       // sizes as requested, before rounding

  int64_t num_alloc_retries = 0;   // allocations that freed the cache and retried
  int64_t num_ooms = 0;            // allocations that raised OutOfMemoryError
  int64_t num_sync_all_streams = 0;  // waits for every pending stream event
  int64_t num_device_alloc = 0;    // runtime.allocate calls that succeeded
  int64_t num_device_free = 0;     // runtime.free calls

  Stat oversize_allocations;       // blocks of at least max_split_size handed out
  Stat oversize_segments;          // segments of at least max_split_size held
  int64_t max_split_size = 0;      // the configured limit (SIZE_MAX clamps to INT64_MAX)
};

// The flat dict torch.cuda.memory_stats() returns: "allocated_bytes.all.current",
// "segment.large_pool.peak", "num_ooms", ...
std::map<std::string, int64_t> memory_stats_dict(const DeviceStats& stats);

}  // namespace torch_core
