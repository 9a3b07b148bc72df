// Internal to the caching allocator: the cache of one device, behind one mutex.
#pragma once

#include <cstddef>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "torch_core/csrc/runtime/allocator_config.h"
#include "torch_core/csrc/runtime/allocator_history.h"
#include "torch_core/csrc/runtime/allocator_snapshot.h"
#include "torch_core/csrc/runtime/allocator_stats.h"
#include "torch_core/csrc/runtime/caching_allocator.h"
#include "torch_core/csrc/runtime/caching_allocator_block.h"
#include "torch_core/csrc/runtime/device_runtime.h"

namespace torch_core {
namespace caching_allocator_detail {

// The first sentences of every out-of-memory message: what was asked for, and what the
// device has ("CUDA out of memory. Tried to allocate 2.00 GiB. CUDA device 0 has ...").
std::string out_of_memory_summary(const std::string& device_type, int device, std::size_t requested,
                                  const MemoryInfo& info);

class DeviceCache {
 public:
  // `device_type` is owned by the CachingAllocator and outlives this.
  DeviceCache(DeviceRuntime& runtime, int device, const AllocatorConfig& config,
              const std::string& device_type);
  // Gives every segment back to the runtime, allocated or not.
  ~DeviceCache();
  DeviceCache(const DeviceCache&) = delete;
  DeviceCache& operator=(const DeviceCache&) = delete;

  // A block of at least `size` bytes usable on `stream`; throws OutOfMemoryError.
  // `context`: the caller's stack, for memory history (may be null).
  Block* malloc(std::size_t size, StreamHandle stream, Traceback context);
  void free(Block* block, Traceback context);
  void record_stream(Block* block, int stream_device, StreamHandle stream);
  // The first address of the segment `block` is part of; throws RuntimeError when the
  // segment came from a SegmentSource rather than the runtime.
  void* segment_base(const Block* block);
  // Waits for pending events, then gives every unsplit cached segment back.
  void empty_cache();
  DeviceStats stats();
  void reset_peak_stats();
  void reset_accumulated_stats();
  void set_memory_fraction(double fraction);
  // New settings from now on (segments already made stay as they are).
  void apply_config(const AllocatorConfig& config);
  void append_snapshot(std::vector<SegmentInfo>& out);
  // Private pools (CUDA graphs): while a filter is registered, the requests whose stream
  // it accepts are served from pool `id`'s own blocks, which no other request reuses.
  void begin_allocate_to_pool(PoolId id, PoolFilter filter);
  void end_allocate_to_pool(PoolId id);
  // One user less; a pool without users gives its cached segments back on the next
  // empty_cache() or out-of-memory retry, and is gone once its last block is.
  void release_pool(PoolId id);
  // A new pool with one user, its segments from `source` (null: the runtime), or one
  // more user of an existing pool (then `source` must be null): stock's
  // createOrIncrefPool, for torch.cuda.MemPool.
  void create_pool(PoolId id, std::shared_ptr<const SegmentSource> source, PoolOptions options);
  // The pool's users; 0 for a pool that does not exist.
  int pool_use_count(PoolId id);
  // The blocks of the pool handed out and not yet freed; throws for an unknown pool.
  std::vector<void*> pool_live_allocations(PoolId id);
  // Gives back the cached segments of pool `id` if it has no users (stock's
  // emptyCache(mempool_id)).
  void empty_pool_cache(PoolId id);
  // Memory history: what to record from now on (null: nothing), and the trace so far.
  void set_history(std::shared_ptr<const HistorySettings> settings, bool clear_trace);
  std::vector<TraceEntry> trace();

 private:
  struct Request {
    std::size_t requested;  // the caller's size
    std::size_t size;       // rounded block size
    std::size_t segment;    // segment size to ask the runtime for
    BlockPool* pool;
    StreamHandle stream;
    Traceback context;
  };

  template <typename F>
  void for_each_stat(const BlockPool& pool, F f) {
    f(kAggregatePool);
    f(pool.is_small ? kSmallPool : kLargePool);
  }

  // The pool that serves `size` bytes on `stream`: a private one while a filter takes it.
  BlockPool* pool_for(std::size_t size, StreamHandle stream);
  Block* find_cached(Request& request);
  // New memory for a request, as a free block taken out of the cache: a segment from the
  // runtime (or the pool's source), or pages mapped into an expandable segment; null
  // when the device is out of memory.
  Block* grow(const Request& request);
  Block* allocate_segment(const Request& request);
  bool should_split(const Block* block, std::size_t size) const;
  Block* take(Block* block, const Request& request);
  void cache(Block* block);
  // Cached pieces of split segments gained (positive) or lost, and their bytes.
  void account_inactive_split(const BlockPool& pool, int64_t blocks, int64_t bytes);
  std::size_t try_merge(Block* dst, Block* src);

  void record_events(Block* block);
  void process_events();
  void synchronize_and_free_events();

  // Releasing relies on runtime.free() waiting for work still queued on the memory, as
  // cudaFree and the simulated runtime do: a freed block may still be in use by work on
  // its stream, which the cache orders but the runtime's pool does not.
  void release_segment(Block* block);
  // Gives a segment's memory back to where it came from (the runtime or the pool's source).
  void free_segment_memory(const Block& head);
  void release_cached_segments(BlockPool& pool);
  void release_cached_blocks();
  void release_freeable_private_pools();

  bool release_available_cached_blocks(const Request& request);
  void garbage_collect();

  // --- Expandable segments (caching_allocator_device_expandable.cpp) ---
  // The default pools grow expandable segments while expandable_segments:True and the
  // runtime has virtual memory calls; private pools (graphs, MemPool) keep whole segments.
  bool expands(const BlockPool& pool) const { return expandable_ && pool.id == PoolId{0, 0}; }
  ExpandableSegment& expandable_segment(BlockPool& pool, StreamHandle stream);
  // Maps enough pages after the free tail of the pool's segment for `request`; the
  // block is merged with its free neighbours and out of the cache.
  Block* map_expandable(const Request& request);
  // Maps [start, start + bytes) a page at a time; on failure, none of it stays mapped.
  bool map_pages(const ExpandableSegment& segment, char* start, std::size_t bytes);
  void unmap_pages(const ExpandableSegment& segment, char* from, char* to);
  // Unmaps the whole pages inside a cached block; what is left of it stays cached.
  void unmap_free_pages(Block* block);
  // Folds an unmapped neighbour `src` into the unmapped block `dst`.
  void merge_unmapped(Block* dst, Block* src);
  // Unmaps everything and gives the address space back (the destructor).
  void release_expandable_segments();

  // Appends to the trace when memory history records `action` (the lock is held).
  void record(TraceAction action, const void* address, std::size_t size, StreamHandle stream,
              Traceback frames, std::size_t device_free = 0);

  std::size_t capacity();
  std::size_t allowed_bytes();
  [[noreturn]] void raise_out_of_memory(const Request& request);

  DeviceRuntime& runtime_;
  const int device_;
  AllocatorConfig config_;  // under mutex_, as everything the settings decide
  const std::string& device_type_;

  std::mutex mutex_;
  DeviceStats stats_;
  BlockPool large_blocks_{false};
  BlockPool small_blocks_{true};
  struct PrivatePool {
    PrivatePool(PoolId id, const std::shared_ptr<const SegmentSource>& source)
        : large(false, id, source), small(true, id, source) {}
    BlockPool large;
    BlockPool small;
    int use_count = 1;
    bool use_on_oom = false;  // only while it has users, as stock's ~MemPool withdraws it
  };
  std::map<PoolId, std::unique_ptr<PrivatePool>> private_pools_;
  // A new pool (segments from `source`, null: the runtime) or one user more of an existing
  // one, which takes no source; `call` names the caller in errors. The lock is held.
  void create_or_incref_pool(const char* call, PoolId id, std::shared_ptr<const SegmentSource> source);
  // Out of memory for a request of the default pools: a cached block of a use_on_oom
  // pool that fits (the request then belongs to that pool), or null.
  Block* find_in_use_on_oom_pools(Request& request);
  // Gives back the cached segments of a pool that nothing uses or allocates to; true when
  // it then holds no segment (and may be forgotten).
  bool release_if_unused(PoolId id, PrivatePool& pool);
  // Registered filters, oldest first. While any is, nothing waits on or queries events
  // (a capture forbids it) and nothing is given back to the runtime.
  std::vector<std::pair<PoolId, PoolFilter>> allocating_to_pools_;
  std::vector<Block*> deferred_event_blocks_;  // freed meanwhile, with other streams' uses
  std::unordered_set<Block*> active_blocks_;  // allocated, or freed awaiting events
  // A free-time event and the block it holds back; `foreign` events were made on another
  // device (the stream's) and are destroyed after use instead of kept as spares.
  struct PendingEvent {
    EventHandle event;
    Block* block;
    bool foreign;
  };
  void retire(const PendingEvent& pending);

  // Per stream, in record order, so the first not-yet-complete event ends the scan.
  std::unordered_map<StreamHandle, std::deque<PendingEvent>> pending_;
  std::vector<EventHandle> spare_events_;
  std::size_t reserved_ = 0;
  std::size_t capacity_ = 0;         // looked up on first need
  bool expandable_ = false;
  std::map<std::pair<const BlockPool*, StreamHandle>, std::unique_ptr<ExpandableSegment>> expandable_segments_;
  double memory_fraction_ = 1.0;
  bool fraction_set_ = false;
  std::shared_ptr<const HistorySettings> history_;  // null: not recording
  std::deque<TraceEntry> trace_;                    // oldest first, at most max_entries
};

}  // namespace caching_allocator_detail
}  // namespace torch_core
