// DeviceCache's private pools: the memory of CUDA graphs (stock's graph_pools) and of
// torch.cuda.MemPool. A graph's allocations must keep their addresses for every replay, so
// while it is captured its requests are served from a pool of its own, which eager
// requests never reuse; graphs that share a pool id share that memory. A MemPool may take
// its segments from a pluggable allocator's functions instead of the runtime.
#include "torch_core/csrc/runtime/caching_allocator_device.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "torch_core/csrc/runtime/allocator_sizes.h"

namespace torch_core {
namespace caching_allocator_detail {
namespace {

std::string pool_text(PoolId id) {
  return "(" + std::to_string(id.first) + ", " + std::to_string(id.second) + ")";
}

}  // namespace

BlockPool* DeviceCache::pool_for(std::size_t size, StreamHandle stream) {
  const bool small = size <= allocator_sizes::kSmallSize;
  // The most recent registration first, as stock's allocator looks them up.
  for (auto it = allocating_to_pools_.rbegin(); it != allocating_to_pools_.rend(); ++it) {
    if (!it->second(stream)) continue;
    PrivatePool& pool = *private_pools_.at(it->first);
    return small ? &pool.small : &pool.large;
  }
  return small ? &small_blocks_ : &large_blocks_;
}

void DeviceCache::create_or_incref_pool(const char* call, PoolId id, std::shared_ptr<const SegmentSource> source) {
  if (id == PoolId{0, 0}) {
    throw RuntimeError(std::string(call) + ": (0, 0) names the default pools, not a private pool; use "
                       "graph_pool_handle() for a new id");
  }
  const auto it = private_pools_.find(id);
  if (it == private_pools_.end()) {
    private_pools_.emplace(id, std::make_unique<PrivatePool>(id, std::move(source)));
    return;
  }
  if (source != nullptr) {
    throw RuntimeError(std::string(call) + ": pool " + pool_text(id) + " on device " + std::to_string(device_) +
                       " exists already; an allocator is given only to a new pool");
  }
  ++it->second->use_count;
}

void DeviceCache::begin_allocate_to_pool(PoolId id, PoolFilter filter) {
  std::lock_guard<std::mutex> lock(mutex_);
  create_or_incref_pool("begin_allocate_to_pool", id, nullptr);
  allocating_to_pools_.emplace_back(id, std::move(filter));
}

void DeviceCache::create_pool(PoolId id, std::shared_ptr<const SegmentSource> source, PoolOptions options) {
  std::lock_guard<std::mutex> lock(mutex_);
  create_or_incref_pool("create_pool", id, std::move(source));
  PrivatePool& pool = *private_pools_.at(id);
  pool.use_on_oom = options.use_on_oom;
  pool.large.no_split = options.no_split;
  pool.small.no_split = options.no_split;
}

Block* DeviceCache::find_in_use_on_oom_pools(Request& request) {
  if (request.pool->id != PoolId{0, 0}) return nullptr;  // a private pool's request just fails
  for (auto& entry : private_pools_) {
    PrivatePool& pool = *entry.second;
    if (!pool.use_on_oom || pool.use_count == 0) continue;
    Request borrowed = request;
    borrowed.pool = request.pool->is_small ? &pool.small : &pool.large;
    if (Block* block = find_cached(borrowed)) {
      request = std::move(borrowed);
      return block;
    }
  }
  return nullptr;
}

int DeviceCache::pool_use_count(PoolId id) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = private_pools_.find(id);
  return it == private_pools_.end() ? 0 : it->second->use_count;
}

std::vector<void*> DeviceCache::pool_live_allocations(PoolId id) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = private_pools_.find(id);
  if (it == private_pools_.end()) {
    throw RuntimeError("Could not find pool of id " + pool_text(id) + " on device " + std::to_string(device_));
  }
  const PrivatePool& pool = *it->second;
  std::vector<void*> live;
  for (const Block* block : active_blocks_) {
    if (block->allocated && (block->pool == &pool.large || block->pool == &pool.small)) {
      live.push_back(block->ptr);
    }
  }
  return live;
}

void DeviceCache::empty_pool_cache(PoolId id) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!allocating_to_pools_.empty()) return;  // a capture may be underway: give nothing back
  const auto it = private_pools_.find(id);
  if (it == private_pools_.end()) return;
  synchronize_and_free_events();
  if (release_if_unused(it->first, *it->second)) private_pools_.erase(it);
}

void DeviceCache::end_allocate_to_pool(PoolId id) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = std::find_if(allocating_to_pools_.begin(), allocating_to_pools_.end(),
                               [&](const auto& entry) { return entry.first == id; });
  if (it == allocating_to_pools_.end()) {
    throw RuntimeError("end_allocate_to_pool: nothing allocates to pool " + pool_text(id) +
                       " on device " + std::to_string(device_));
  }
  allocating_to_pools_.erase(it);
}

void DeviceCache::release_pool(PoolId id) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = private_pools_.find(id);
  if (it == private_pools_.end() || it->second->use_count == 0) {
    throw RuntimeError("release_pool: pool " + pool_text(id) + " on device " +
                       std::to_string(device_) + " has no user to release");
  }
  if (--it->second->use_count == 0) it->second->use_on_oom = false;
}

// Gives back the whole cached segments of pools without users, and forgets the pools
// that hold no segment any more (blocks still allocated keep theirs alive). A pool still
// allocated to is kept whatever its count says (released too early by its user).
void DeviceCache::release_freeable_private_pools() {
  for (auto it = private_pools_.begin(); it != private_pools_.end();) {
    it = release_if_unused(it->first, *it->second) ? private_pools_.erase(it) : std::next(it);
  }
}

bool DeviceCache::release_if_unused(PoolId id, PrivatePool& pool) {
  const bool allocated_to = std::any_of(allocating_to_pools_.begin(), allocating_to_pools_.end(),
                                        [&](const auto& entry) { return entry.first == id; });
  if (pool.use_count > 0 || allocated_to) return false;
  release_cached_segments(pool.large);
  release_cached_segments(pool.small);
  return pool.large.segments == 0 && pool.small.segments == 0;
}

}  // namespace caching_allocator_detail
}  // namespace torch_core
