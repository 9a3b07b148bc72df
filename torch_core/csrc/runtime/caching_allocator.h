// The caching device allocator, written once over DeviceRuntime for every backend (the
// design of PyTorch's CUDA caching allocator, c10/cuda/CUDACachingAllocator.cpp).
//
// - Memory comes from the runtime in segments and is handed out in blocks. A freed block
//   is cached, not returned, and reused by later requests on the stream it was allocated
//   on (best fit by size); big enough leftovers are split off and merged back on free.
// - Requests up to 1 MiB share 2 MiB segments (small pool); 1..10 MiB requests share
//   20 MiB segments; larger ones get segments rounded up to 2 MiB (large pool).
// - record_stream(ptr, d, s): the block was used on stream s (of device d, which may be
//   another device) too. Its free records an event on s, made on d, and the block is
//   reused only after the event completes.
// - When the runtime is out of memory the allocator frees cached segments and retries,
//   and raises OutOfMemoryError only when that fails too.
// - Private pools (CUDA graphs' memory, torch.cuda.MemPool): between
//   begin_allocate_to_pool() and end_allocate_to_pool(), requests whose stream a filter
//   accepts (a capture's streams, a thread's) are served from blocks of that pool only, and
//   those blocks serve nothing else, so a graph's addresses stay valid for its replays.
//   Meanwhile nothing is given back to the runtime and no event is queried (a capture
//   forbids both). A pool created with a SegmentSource takes its segments from it.
// - With caching off (set_caching_enabled(false), or config.uncached) a request takes
//   memory straight from the runtime and its free gives it straight back, after
//   synchronising the device as cudaFree does. Such blocks are not in the statistics,
//   the snapshot or the history, as in stock's uncached path; a block keeps the path it
//   was allocated on.
//
// Thread-safe: one mutex per device, and a sharded table from pointers to blocks.
// It has no torch types: a c10::DeviceAllocator adapter wraps it (DataPtr, c10::Stream,
// DeviceStats) and owns the choice of device and current stream.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "torch_core/csrc/runtime/allocator_config.h"
#include "torch_core/csrc/runtime/allocator_errors.h"
#include "torch_core/csrc/runtime/allocator_history.h"
#include "torch_core/csrc/runtime/allocator_snapshot.h"
#include "torch_core/csrc/runtime/allocator_stats.h"
#include "torch_core/csrc/runtime/device_runtime.h"
#include "torch_core/csrc/runtime/segment_source.h"

namespace torch_core {

// Which requests a private pool serves, by the stream they are made on.
using PoolFilter = std::function<bool(StreamHandle)>;

// torch.cuda.MemPool's options. use_on_oom: while the pool has users, a request of the
// default pools that finds the device full takes a cached block of this pool (never a new
// segment) before raising. no_split: the pool's blocks are never split, so each request
// takes a whole segment.
struct PoolOptions {
  bool use_on_oom = false;
  bool no_split = false;
};

namespace caching_allocator_detail {
class DeviceCache;
struct Block;
}  // namespace caching_allocator_detail

class CachingAllocator {
 public:
  // `runtime` must outlive the allocator. `device_type` names the device in messages
  // ("CUDA" gives "CUDA out of memory. ..."). Devices are runtime.device_count() at
  // construction; nothing is asked of the runtime until the first allocation.
  explicit CachingAllocator(DeviceRuntime& runtime, AllocatorConfig config = {},
                            std::string device_type = "device");
  // Gives all memory back to the runtime, allocated or cached: pointers still held by
  // callers dangle. (A process-wide adapter may choose never to destroy it, as PyTorch.)
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  // At least `bytes` bytes on `device`, usable on `stream` without synchronization;
  // nullptr for 0 bytes. Throws OutOfMemoryError, or std::out_of_range for a bad device.
  void* allocate(int device, std::size_t bytes, StreamHandle stream);
  // Returns `ptr` to the cache; nullptr is ignored. Throws RuntimeError for a pointer
  // this allocator did not hand out.
  void free(void* ptr);
  // Marks `ptr` as used on `stream` as well as its allocation stream (see above).
  void record_stream(void* ptr, int stream_device, StreamHandle stream);
  // The start of the runtime allocation (segment) that holds the live block `ptr`: what
  // an IPC handle names (stock's getBaseAllocation). Throws RuntimeError for a pointer
  // this allocator did not hand out or whose segment is not the runtime's (a
  // SegmentSource's memory cannot be shared).
  void* segment_base(void* ptr) const;
  // Applies allocator settings at run time (stock's
  // torch._C._accelerator_setAllocatorSettings): the keys `text` gives change on every
  // device, the others keep their values; segments already made stay as they are. Throws
  // RuntimeError naming `source`, changing nothing, for a bad setting.
  void update_settings(const std::string& text, const std::string& source);
  // torch.cuda.caching_allocator_enable. Caching stays off under config.uncached.
  void set_caching_enabled(bool enabled) { caching_.store(enabled, std::memory_order_release); }
  bool caching_enabled() const {
    return !config_.uncached && caching_.load(std::memory_order_acquire);
  }
  // Gives every unused cached segment of every device back to the runtime, after
  // waiting for the streams that blocks freed with record_stream were used on.
  void empty_cache();

  // Private pools, by id ({0, 0} is not one). Each begin counts a user of the pool,
  // which release_pool() takes away; see the header comment.
  void begin_allocate_to_pool(int device, PoolId id, PoolFilter filter);
  void end_allocate_to_pool(int device, PoolId id);
  void release_pool(int device, PoolId id);
  // torch.cuda.MemPool: a pool with one user whose segments come from `source` (null:
  // the runtime), or one user more of an existing pool (`source` null); `options` apply
  // to the pool from now on.
  void create_pool(int device, PoolId id, std::shared_ptr<const SegmentSource> source, PoolOptions options = {});
  int pool_use_count(int device, PoolId id);  // 0: no such pool
  // The pool's blocks handed out and not freed; throws RuntimeError for an unknown pool.
  std::vector<void*> pool_live_allocations(int device, PoolId id);
  // Gives back the pool's cached segments if it has no users any more.
  void empty_pool_cache(int device, PoolId id);

  DeviceStats stats(int device) const;
  void reset_peak_stats(int device);
  void reset_accumulated_stats(int device);
  // Every segment of every device, by device then address.
  std::vector<SegmentInfo> snapshot() const;
  // The runtime's view of the device: free and total bytes.
  MemoryInfo memory_info(int device) const;
  // Caps this allocator's reserved memory on `device` at fraction * total memory
  // (torch.cuda.set_per_process_memory_fraction). Throws RuntimeError outside [0, 1].
  void set_memory_fraction(int device, double fraction);

  // Memory history (torch.cuda.memory._record_memory_history): what every device
  // records from now on; settings that record nothing stop it. `clear_trace` drops the
  // trace recorded so far.
  void record_history(HistorySettings settings, bool clear_trace);
  bool history_enabled() const { return recording_.load(std::memory_order_acquire); }
  // The actions recorded on `device`, oldest first.
  std::vector<TraceEntry> trace(int device) const;
  // The stack that allocated the live `ptr`; null when none was recorded.
  Traceback allocation_traceback(void* ptr) const;

  int device_count() const { return static_cast<int>(devices_.size()); }

 private:
  using Block = caching_allocator_detail::Block;
  // Pointer -> block, split into shards with their own locks so that frees on different
  // threads rarely contend (as PyTorch's allocated_blocks).
  struct Allocation {
    int device;
    Block* block;  // null: taken straight from the runtime (caching was off)
  };
  struct Shard {
    std::mutex mutex;
    std::unordered_map<void*, Allocation> allocations;
  };
  static constexpr std::size_t kShards = 67;  // prime: addresses are 512-byte multiples

  caching_allocator_detail::DeviceCache& device_cache(int device) const;
  Shard& shard(void* ptr) const;
  // The caller's stack when the current settings ask for it (gathered outside all locks).
  Traceback gather_stack(bool wanted_by(const HistorySettings&)) const;
  void* allocate_uncached(int device, std::size_t bytes);

  DeviceRuntime& runtime_;
  const AllocatorConfig config_;  // as the allocator was made
  std::mutex settings_mutex_;
  AllocatorConfig settings_;  // the latest, under settings_mutex_
  const std::string device_type_;
  std::vector<std::unique_ptr<caching_allocator_detail::DeviceCache>> devices_;
  mutable std::array<Shard, kShards> shards_;
  mutable std::mutex history_mutex_;
  std::shared_ptr<const HistorySettings> history_;  // null: not recording
  std::atomic<bool> recording_{false};              // fast path for allocate and free
  std::atomic<bool> caching_{true};
};

}  // namespace torch_core
