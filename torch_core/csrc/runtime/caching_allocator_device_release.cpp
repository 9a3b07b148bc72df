// DeviceCache's side that gives memory back to the runtime: whole segments on out of
// memory, garbage collection above the threshold, empty_cache, and the limits
// (memory fraction) that decide when.
#include "torch_core/csrc/runtime/caching_allocator_device.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace torch_core {
namespace caching_allocator_detail {

// --- Giving memory back --------------------------------------------------------------

void DeviceCache::free_segment_memory(const Block& head) {
  const SegmentSource* source = head.pool->source.get();
  if (source == nullptr) {
    runtime_.free(device_, head.ptr);
    return;
  }
  // runtime.free() waits for the work queued on the memory (as cudaFree); a pluggable
  // allocator's free need not, so the segment's stream is drained first.
  runtime_.synchronize_stream(head.stream);
  std::size_t bytes = 0;  // the whole segment, split or not
  for (const Block* block = &head; block != nullptr; block = block->next) bytes += block->size;
  source->free(head.ptr, bytes, device_, head.stream);
}

void DeviceCache::release_segment(Block* block) {
  free_segment_memory(*block);
  record(TraceAction::kSegmentFree, block->ptr, block->size, block->stream, nullptr);
  block->pool->blocks.erase(block);
  --block->pool->segments;
  reserved_ -= block->size;
  ++stats_.num_device_free;
  for_each_stat(*block->pool, [&](std::size_t type) {
    stats_.segment[type].decrease(1);
    stats_.reserved_bytes[type].decrease(static_cast<int64_t>(block->size));
  });
  if (block->size >= config_.max_split_size) stats_.oversize_segments.decrease(1);
  delete block;
}

void DeviceCache::release_cached_segments(BlockPool& pool) {
  std::vector<Block*> expandable;
  for (auto it = pool.blocks.begin(); it != pool.blocks.end();) {
    Block* block = *it++;
    if (block->expandable != nullptr) {
      expandable.push_back(block);
    } else if (!block->is_split()) {  // split: the segment is in use
      release_segment(block);
    }
  }
  for (Block* block : expandable) unmap_free_pages(block);
}

void DeviceCache::release_cached_blocks() {
  synchronize_and_free_events();
  release_cached_segments(large_blocks_);
  release_cached_segments(small_blocks_);
  release_freeable_private_pools();
}

// Frees the smallest whole cached segment big enough for `request`, else the largest ones
// until enough is free. Both pools are searched: to the runtime a segment is just bytes.
bool DeviceCache::release_available_cached_blocks(const Request& request) {
  std::vector<Block*> whole;
  for (BlockPool* pool : {&large_blocks_, &small_blocks_})
    for (Block* block : pool->blocks)
      if (block->is_whole_segment()) whole.push_back(block);
  std::sort(whole.begin(), whole.end(),
            [](const Block* a, const Block* b) { return a->size < b->size; });
  const auto fit = std::find_if(whole.begin(), whole.end(), [&](const Block* block) {
    return block->size >= request.segment;
  });
  if (fit != whole.end()) {
    release_segment(*fit);
    return true;
  }
  std::size_t released = 0;
  for (auto it = whole.rbegin(); it != whole.rend() && released < request.segment; ++it) {
    released += (*it)->size;
    release_segment(*it);
  }
  return released >= request.segment;
}

// When reserved memory is above garbage_collection_threshold of what the allocator may
// use, frees whole cached large segments, oldest (least recently reusable) first, until
// it is below again. Unlike running out of memory, this waits for no event.
void DeviceCache::garbage_collect() {
  if (config_.garbage_collection_threshold <= 0.0) return;
  const auto threshold = static_cast<std::size_t>(config_.garbage_collection_threshold *
                                                  static_cast<double>(allowed_bytes()));
  if (reserved_ <= threshold) return;
  const std::size_t target = reserved_ - threshold;

  std::vector<Block*> candidates;
  double total_age = 0;
  for (Block* block : large_blocks_.blocks) {
    if (!block->is_whole_segment()) continue;
    candidates.push_back(block);
    total_age += static_cast<double>(large_blocks_.age(block));
  }
  std::size_t reclaimed = 0;
  while (reclaimed < target && !candidates.empty()) {
    // Free every block at least as old as the average, not just enough to reach the
    // target, so the next allocation does not collect again at once.
    const double average_age = total_age / static_cast<double>(candidates.size());
    std::vector<Block*> younger;
    for (Block* block : candidates) {
      const auto age = static_cast<double>(large_blocks_.age(block));
      if (age < average_age) {
        younger.push_back(block);
        continue;
      }
      reclaimed += block->size;
      total_age -= age;
      release_segment(block);
    }
    candidates.swap(younger);
  }
}

// --- Limits --------------------------------------------------------------------------

std::size_t DeviceCache::capacity() {
  if (capacity_ == 0) capacity_ = runtime_.memory_info(device_).total_bytes;
  return capacity_;
}

std::size_t DeviceCache::allowed_bytes() {
  const double fraction = fraction_set_ ? memory_fraction_ : 1.0;
  return static_cast<std::size_t>(fraction * static_cast<double>(capacity()));
}

void DeviceCache::set_memory_fraction(double fraction) {
  if (!(fraction >= 0.0 && fraction <= 1.0)) {
    throw RuntimeError("set_memory_fraction: the fraction must be in [0, 1], got " +
                       std::to_string(fraction));
  }
  std::lock_guard<std::mutex> lock(mutex_);
  memory_fraction_ = fraction;
  fraction_set_ = true;
}

void DeviceCache::empty_cache() {
  std::lock_guard<std::mutex> lock(mutex_);
  release_cached_blocks();
}

}  // namespace caching_allocator_detail
}  // namespace torch_core
