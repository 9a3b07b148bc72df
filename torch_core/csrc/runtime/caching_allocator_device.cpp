#include "torch_core/csrc/runtime/caching_allocator_device.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>

#include "torch_core/csrc/runtime/allocator_sizes.h"
#include "torch_core/csrc/runtime/current_device_scope.h"

namespace torch_core {
namespace caching_allocator_detail {

namespace sizes = allocator_sizes;

DeviceCache::DeviceCache(DeviceRuntime& runtime, int device, const AllocatorConfig& config,
                         const std::string& device_type)
    : runtime_(runtime), device_(device), device_type_(device_type) {
  apply_config(config);
}

void DeviceCache::apply_config(const AllocatorConfig& config) {
  // Asked of the runtime outside the lock, and only when it matters.
  const bool expandable = config.expandable_segments && runtime_.vm_granularity(device_) > 0;
  std::lock_guard<std::mutex> lock(mutex_);
  config_ = config;
  expandable_ = expandable;
  constexpr auto kMax = static_cast<std::size_t>(std::numeric_limits<int64_t>::max());
  stats_.max_split_size = static_cast<int64_t>(std::min(config.max_split_size, kMax));
  if (config.per_process_memory_fraction >= 0.0) {
    memory_fraction_ = config.per_process_memory_fraction;
    fraction_set_ = true;
  }
}

DeviceCache::~DeviceCache() {
  try {
    synchronize_and_free_events();
    std::vector<Block*> blocks(active_blocks_.begin(), active_blocks_.end());
    for (BlockPool* pool : {&large_blocks_, &small_blocks_})
      blocks.insert(blocks.end(), pool->blocks.begin(), pool->blocks.end());
    for (const auto& entry : private_pools_) {
      for (BlockPool* pool : {&entry.second->large, &entry.second->small})
        blocks.insert(blocks.end(), pool->blocks.begin(), pool->blocks.end());
    }
    for (Block* block : blocks) {
      // The head of a segment holds the segment's pointer.
      if (block->prev == nullptr && block->expandable == nullptr) free_segment_memory(*block);
    }
    for (Block* block : blocks) delete block;
    release_expandable_segments();
    for (EventHandle event : spare_events_) runtime_.destroy_event(event);
  } catch (...) {
    // A destructor must not throw; a runtime already shut down has nothing to give back.
  }
}

// --- Allocation ----------------------------------------------------------------------

Block* DeviceCache::malloc(std::size_t size, StreamHandle stream, Traceback context) {
  std::lock_guard<std::mutex> lock(mutex_);
  // During a capture, event queries are forbidden and freeing would synchronise: the
  // cache only grows until it ends (as stock's allocator).
  const bool capturing = !allocating_to_pools_.empty();
  if (!capturing) process_events();
  if (size > sizes::kMaxRequest) {
    raise_out_of_memory(Request{size, size, size, &large_blocks_, stream, std::move(context)});
  }
  const std::size_t rounded = sizes::round_size(size, config_);
  Request request{size, rounded, sizes::segment_size(rounded), pool_for(rounded, stream), stream,
                  std::move(context)};

  Block* block = find_cached(request);
  if (block == nullptr) {
    if (!capturing) garbage_collect();
    block = grow(request);
    if (block == nullptr && capturing) raise_out_of_memory(request);
    if (block == nullptr) {
      // Out of device memory: give back cached segments, the fewest first, and retry.
      ++stats_.num_alloc_retries;
      if (release_available_cached_blocks(request)) block = grow(request);
      if (block == nullptr) {
        release_cached_blocks();
        block = grow(request);
      }
      if (block == nullptr) block = find_in_use_on_oom_pools(request);  // the last resort
      if (block == nullptr) raise_out_of_memory(request);
    }
  }
  return take(block, request);
}

Block* DeviceCache::find_cached(Request& request) {
  BlockPool& pool = *request.pool;
  if (config_.garbage_collection_threshold > 0.0) ++pool.free_block_searches;
  Block key(request.stream, request.size, &pool, nullptr);
  const auto it = pool.blocks.lower_bound(&key);
  if (it == pool.blocks.end() || (*it)->stream != request.stream) return nullptr;
  Block* block = *it;
  // Unsplittable (oversize) blocks are kept for oversize requests ...
  if (request.size < config_.max_split_size && block->size >= config_.max_split_size)
    return nullptr;
  // ... and one much larger than an oversize request would waste the difference.
  if (request.size >= config_.max_split_size &&
      block->size - request.size >= config_.max_non_split_rounding_size)
    return nullptr;
  pool.blocks.erase(it);
  return block;
}

Block* DeviceCache::grow(const Request& request) {
  return expands(*request.pool) ? map_expandable(request) : allocate_segment(request);
}

Block* DeviceCache::allocate_segment(const Request& request) {
  if (fraction_set_ && reserved_ + request.segment > allowed_bytes()) return nullptr;
  const SegmentSource* source = request.pool->source.get();
  void* ptr = source == nullptr ? runtime_.allocate(device_, request.segment)
                                : source->allocate(request.segment, device_, request.stream);
  if (ptr == nullptr) return nullptr;
  reserved_ += request.segment;
  ++request.pool->segments;
  ++stats_.num_device_alloc;
  const auto bytes = static_cast<int64_t>(request.segment);
  for_each_stat(*request.pool, [&](std::size_t type) {
    stats_.segment[type].increase(1);
    stats_.reserved_bytes[type].increase(bytes);
  });
  if (request.segment >= config_.max_split_size) stats_.oversize_segments.increase(1);
  record(TraceAction::kSegmentAlloc, ptr, request.segment, request.stream, request.context);
  return new Block(request.stream, request.segment, request.pool, ptr);
}

bool DeviceCache::should_split(const Block* block, std::size_t size) const {
  if (block->pool->no_split) return false;
  const std::size_t remaining = block->size - size;
  if (block->pool->is_small) return remaining >= sizes::kMinBlockSize;
  // A large remainder below 1 MiB could only ever serve small requests, which the large
  // pool does not take, so it stays with the block.
  return size < config_.max_split_size && remaining > sizes::kSmallSize;
}

// Hands out `block` (from the cache or a new segment), splitting off what it does not need.
Block* DeviceCache::take(Block* block, const Request& request) {
  BlockPool& pool = *request.pool;
  const bool already_split = block->is_split();
  if (should_split(block, request.size)) {
    Block* remaining = block;
    block = new Block(request.stream, request.size, &pool, remaining->ptr);
    block->expandable = remaining->expandable;
    block->prev = remaining->prev;
    if (block->prev != nullptr) block->prev->next = block;
    block->next = remaining;
    remaining->prev = block;
    remaining->ptr = static_cast<char*>(remaining->ptr) + request.size;
    remaining->size -= request.size;
    pool.insert(remaining);
    if (already_split) {  // an inactive split piece shrinks
      account_inactive_split(pool, 0, -static_cast<int64_t>(block->size));
    } else {  // a whole segment becomes split: its remainder is a new inactive piece
      account_inactive_split(pool, 1, static_cast<int64_t>(remaining->size));
    }
  } else if (already_split) {  // an inactive split piece becomes active as a whole
    account_inactive_split(pool, -1, -static_cast<int64_t>(block->size));
  }

  block->allocated = true;
  block->requested_size = request.requested;
  if (history_ != nullptr && history_->blocks) block->context = request.context;
  record(TraceAction::kAlloc, block->ptr, request.requested, request.stream, request.context);
  active_blocks_.insert(block);
  for_each_stat(pool, [&](std::size_t type) {
    stats_.allocation[type].increase(1);
    stats_.allocated_bytes[type].increase(static_cast<int64_t>(block->size));
    stats_.active[type].increase(1);
    stats_.active_bytes[type].increase(static_cast<int64_t>(block->size));
    stats_.requested_bytes[type].increase(static_cast<int64_t>(block->requested_size));
  });
  if (block->size >= config_.max_split_size) stats_.oversize_allocations.increase(1);
  return block;
}

// --- Freeing -------------------------------------------------------------------------

void DeviceCache::free(Block* block, Traceback context) {
  std::lock_guard<std::mutex> lock(mutex_);
  record(TraceAction::kFreeRequested, block->ptr, block->requested_size, block->stream,
         std::move(context));
  block->allocated = false;
  for_each_stat(*block->pool, [&](std::size_t type) {
    stats_.allocation[type].decrease(1);
    stats_.allocated_bytes[type].decrease(static_cast<int64_t>(block->size));
  });
  if (block->size >= config_.max_split_size) stats_.oversize_allocations.decrease(1);
  if (block->stream_uses.empty()) {
    cache(block);
  } else if (!allocating_to_pools_.empty()) {
    deferred_event_blocks_.push_back(block);  // no events may be recorded until it ends
  } else {
    record_events(block);  // cached once every stream it was used on passes its event
  }
}

void DeviceCache::record_stream(Block* block, int stream_device, StreamHandle stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  // Work on the allocation stream is ordered with reuse already.
  if (stream != block->stream) block->stream_uses.insert({stream, stream_device});
}

void* DeviceCache::segment_base(const Block* block) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (block->pool->source != nullptr) {
    throw RuntimeError(device_type_ + " memory from a pluggable allocator or a MemPool's allocator cannot be "
                       "shared with another process; copy it into memory of the default allocator first");
  }
  if (block->expandable != nullptr) {
    throw RuntimeError("Tensors allocated with expandable_segments:True cannot be shared between processes by "
                       "this allocator yet. Consider using expandable_segments:False where they are allocated, "
                       "e.g. in data loading workers via "
                       "torch.cuda.memory._set_allocator_settings('expandable_segments:False')");
  }
  while (block->prev != nullptr) block = block->prev;
  return block->ptr;
}

// Returns a freed block (no events outstanding) to its pool, merged with free neighbours.
void DeviceCache::cache(Block* block) {
  record(TraceAction::kFreeCompleted, block->ptr, block->requested_size, block->stream,
         block->context);
  block->context = nullptr;
  const std::size_t original_size = block->size;
  const std::size_t requested = block->requested_size;
  BlockPool& pool = *block->pool;
  int64_t split_blocks = 0;
  int64_t split_bytes = 0;
  const std::array<Block*, 2> neighbours = {block->prev, block->next};
  for (Block* neighbour : neighbours) {
    const std::size_t subsumed = try_merge(block, neighbour);
    if (subsumed > 0) {  // that neighbour was an inactive split piece
      split_blocks -= 1;
      split_bytes -= static_cast<int64_t>(subsumed);
    }
  }
  active_blocks_.erase(block);
  block->requested_size = 0;
  pool.insert(block);
  if (block->is_split()) {
    split_blocks += 1;
    split_bytes += static_cast<int64_t>(block->size);
  }
  account_inactive_split(pool, split_blocks, split_bytes);
  for_each_stat(pool, [&](std::size_t type) {
    stats_.active[type].decrease(1);
    stats_.active_bytes[type].decrease(static_cast<int64_t>(original_size));
    stats_.requested_bytes[type].decrease(static_cast<int64_t>(requested));
  });
}

void DeviceCache::account_inactive_split(const BlockPool& pool, int64_t blocks, int64_t bytes) {
  for_each_stat(pool, [&](std::size_t type) {
    if (blocks > 0) stats_.inactive_split[type].increase(blocks);
    if (blocks < 0) stats_.inactive_split[type].decrease(-blocks);
    if (bytes > 0) stats_.inactive_split_bytes[type].increase(bytes);
    if (bytes < 0) stats_.inactive_split_bytes[type].decrease(-bytes);
  });
}

// Folds `src` into `dst` when it is a cached neighbour; returns the bytes gained.
std::size_t DeviceCache::try_merge(Block* dst, Block* src) {
  if (src == nullptr || src->allocated || src->event_count > 0 || !src->stream_uses.empty() ||
      src->mapped != dst->mapped)
    return 0;
  const std::size_t subsumed = src->size;
  dst->absorb(src);
  src->pool->blocks.erase(src);
  delete src;
  return subsumed;
}

// --- Stream events -------------------------------------------------------------------

void DeviceCache::record_events(Block* block) {
  for (const StreamUse& use : block->stream_uses) {
    // An event is recorded on a stream of its own device: a stream of another device
    // gets an event made there.
    const bool foreign = use.device != device_;
    EventHandle event = nullptr;
    if (foreign || spare_events_.empty()) {
      event = runtime_.create_event(use.device, /*enable_timing=*/false);
    } else {
      event = spare_events_.back();
      spare_events_.pop_back();
    }
    {
      const CurrentDeviceScope on_stream_device(runtime_, use.device);
      runtime_.record_event(event, use.stream);
    }
    ++block->event_count;
    pending_[use.stream].push_back({event, block, foreign});
  }
  block->stream_uses.clear();
}

void DeviceCache::retire(const PendingEvent& pending) {
  if (pending.foreign) {
    runtime_.destroy_event(pending.event);
  } else {
    spare_events_.push_back(pending.event);
  }
  if (--pending.block->event_count == 0) cache(pending.block);
}

void DeviceCache::process_events() {
  for (Block* block : deferred_event_blocks_) record_events(block);
  deferred_event_blocks_.clear();
  for (auto it = pending_.begin(); it != pending_.end();) {
    auto& queue = it->second;
    while (!queue.empty()) {
      const PendingEvent pending = queue.front();
      if (!runtime_.query_event(pending.event)) break;  // later ones on this stream are later still
      queue.pop_front();
      retire(pending);
    }
    it = queue.empty() ? pending_.erase(it) : std::next(it);
  }
}

void DeviceCache::synchronize_and_free_events() {
  for (Block* block : deferred_event_blocks_) record_events(block);
  deferred_event_blocks_.clear();
  ++stats_.num_sync_all_streams;
  for (auto& [stream, queue] : pending_) {
    (void)stream;
    for (const PendingEvent& pending : queue) {
      runtime_.synchronize_event(pending.event);
      retire(pending);
    }
  }
  pending_.clear();
}

}  // namespace caching_allocator_detail
}  // namespace torch_core
