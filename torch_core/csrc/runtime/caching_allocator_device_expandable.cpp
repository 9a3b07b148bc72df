// DeviceCache's expandable segments (expandable_segments:True): one reservation of
// address space per default pool and stream, as large as the device, whose pages are
// mapped as requests need them and unmapped when the cache is released. The blocks of a
// segment chain through its whole range; mapped ones are cached and split as any other
// block, unmapped ones wait in the segment.
#include <algorithm>
#include <cstdint>
#include <memory>

#include "torch_core/csrc/runtime/allocator_sizes.h"
#include "torch_core/csrc/runtime/caching_allocator_device.h"

namespace torch_core {
namespace caching_allocator_detail {
namespace {

std::size_t round_up(std::size_t bytes, std::size_t unit) { return (bytes + unit - 1) / unit * unit; }

// Inserts `block` after `before` (null: at the head) in its segment's chain.
void link_after(Block* before, Block* block, Block* after) {
  block->prev = before;
  block->next = after;
  if (before != nullptr) before->next = block;
  if (after != nullptr) after->prev = block;
}

}  // namespace

ExpandableSegment& DeviceCache::expandable_segment(BlockPool& pool, StreamHandle stream) {
  std::unique_ptr<ExpandableSegment>& slot = expandable_segments_[{&pool, stream}];
  if (slot != nullptr) return *slot;
  // Stock's page sizes: a small pool's segment grows by 2 MiB, a large pool's by 20 MiB
  // (in units of the runtime's granularity).
  const std::size_t granularity = runtime_.vm_granularity(device_);
  const std::size_t page = round_up(pool.is_small ? allocator_sizes::kSmallBuffer : allocator_sizes::kLargeBuffer,
                                    granularity);
  const std::size_t reserved = round_up(capacity(), page);
  void* base = runtime_.vm_reserve(device_, reserved);
  slot = std::make_unique<ExpandableSegment>(ExpandableSegment{base, reserved, page, {}});
  auto* whole = new Block(stream, reserved, &pool, base);
  whole->expandable = slot.get();
  whole->mapped = false;
  slot->unmapped.insert(whole);
  return *slot;
}

bool DeviceCache::map_pages(const ExpandableSegment& segment, char* start, std::size_t bytes) {
  for (char* page = start; page < start + bytes; page += segment.page) {
    if (runtime_.vm_map(device_, page, segment.page)) continue;
    unmap_pages(segment, start, page);  // out of memory: give back what this call mapped
    return false;
  }
  return true;
}

void DeviceCache::unmap_pages(const ExpandableSegment& segment, char* from, char* to) {
  for (char* page = from; page < to; page += segment.page) runtime_.vm_unmap(device_, page, segment.page);
}

Block* DeviceCache::map_expandable(const Request& request) {
  BlockPool& pool = *request.pool;
  ExpandableSegment& segment = expandable_segment(pool, request.stream);
  const auto cached = [](const Block* block) {
    return block != nullptr && block->mapped && !block->allocated && block->event_count == 0 &&
           block->stream_uses.empty();
  };
  // The first unmapped range that, with the cached blocks on either side, can hold the
  // request once (part of) it is mapped.
  for (Block* unmapped : segment.unmapped) {
    const std::size_t before = cached(unmapped->prev) ? unmapped->prev->size : 0;
    const std::size_t after = cached(unmapped->next) ? unmapped->next->size : 0;
    if (before + unmapped->size + after < request.size) continue;
    const std::size_t wanted = request.size > before ? request.size - before : 1;
    const std::size_t bytes = std::min(round_up(wanted, segment.page), unmapped->size);
    if (fraction_set_ && reserved_ + bytes > allowed_bytes()) return nullptr;
    auto* start = static_cast<char*>(unmapped->ptr);
    if (!map_pages(segment, start, bytes)) return nullptr;

    // The mapped pages become a block of their own before what stays unmapped.
    auto* block = new Block(request.stream, bytes, &pool, start);
    block->expandable = &segment;
    segment.unmapped.erase(unmapped);
    if (unmapped->size == bytes) {
      link_after(unmapped->prev, block, unmapped->next);
      delete unmapped;
    } else {
      link_after(unmapped->prev, block, unmapped);
      unmapped->ptr = start + bytes;
      unmapped->size -= bytes;
      segment.unmapped.insert(unmapped);
    }
    reserved_ += bytes;
    ++stats_.num_device_alloc;
    for_each_stat(pool, [&](std::size_t type) { stats_.reserved_bytes[type].increase(static_cast<int64_t>(bytes)); });
    record(TraceAction::kSegmentMap, start, bytes, request.stream, request.context);

    // One free piece with its cached neighbours, counted as an inactive split piece
    // until take() hands it out.
    int64_t pieces = 1;
    for (Block* neighbour : {block->prev, block->next}) {
      if (try_merge(block, neighbour) > 0) --pieces;
    }
    if (block->is_split()) {
      account_inactive_split(pool, pieces, static_cast<int64_t>(bytes));
    } else {  // the whole reservation, mapped: no longer a split piece at all
      account_inactive_split(pool, pieces - 1, -static_cast<int64_t>(block->size - bytes));
    }
    return block;
  }
  return nullptr;
}

void DeviceCache::unmap_free_pages(Block* block) {
  ExpandableSegment& segment = *block->expandable;
  BlockPool& pool = *block->pool;
  auto* base = static_cast<char*>(segment.base);
  auto* start = static_cast<char*>(block->ptr);
  char* const end = start + block->size;
  char* const first = base + round_up(static_cast<std::size_t>(start - base), segment.page);
  char* const last = base + static_cast<std::size_t>(end - base) / segment.page * segment.page;
  if (first >= last) return;  // no whole page inside
  const bool was_split = block->is_split();

  pool.blocks.erase(block);
  unmap_pages(segment, first, last);
  const auto unmapped_bytes = static_cast<std::size_t>(last - first);
  reserved_ -= unmapped_bytes;
  ++stats_.num_device_free;
  for_each_stat(pool, [&](std::size_t type) {
    stats_.reserved_bytes[type].decrease(static_cast<int64_t>(unmapped_bytes));
  });
  record(TraceAction::kSegmentUnmap, first, unmapped_bytes, block->stream, nullptr);

  // What is left mapped before and after the pages stays cached.
  int64_t pieces = 0;
  if (first > start) {
    auto* head = new Block(block->stream, static_cast<std::size_t>(first - start), &pool, start);
    head->expandable = &segment;
    link_after(block->prev, head, block);
    pool.insert(head);
    ++pieces;
  }
  if (last < end) {
    auto* tail = new Block(block->stream, static_cast<std::size_t>(end - last), &pool, last);
    tail->expandable = &segment;
    link_after(block, tail, block->next);
    pool.insert(tail);
    ++pieces;
  }
  block->ptr = first;
  block->size = unmapped_bytes;
  block->mapped = false;
  segment.unmapped.insert(block);
  merge_unmapped(block, block->prev);
  merge_unmapped(block, block->next);
  if (was_split) account_inactive_split(pool, pieces - 1, -static_cast<int64_t>(unmapped_bytes));
}

void DeviceCache::merge_unmapped(Block* dst, Block* src) {
  if (src == nullptr || src->mapped) return;
  ExpandableSegment& segment = *dst->expandable;
  segment.unmapped.erase(dst);  // its address may change
  segment.unmapped.erase(src);
  dst->absorb(src);
  delete src;
  segment.unmapped.insert(dst);
}

void DeviceCache::release_expandable_segments() {
  for (auto& [key, segment] : expandable_segments_) {
    (void)key;
    // What lies between the unmapped blocks (kept in address order) is mapped.
    auto* mapped_from = static_cast<char*>(segment->base);
    for (const Block* unmapped : segment->unmapped) {
      unmap_pages(*segment, mapped_from, static_cast<char*>(unmapped->ptr));
      mapped_from = static_cast<char*>(unmapped->ptr) + unmapped->size;
    }
    unmap_pages(*segment, mapped_from, static_cast<char*>(segment->base) + segment->reserved);
    runtime_.vm_release(device_, segment->base, segment->reserved);
    for (Block* block : segment->unmapped) delete block;
  }
  expandable_segments_.clear();
}

}  // namespace caching_allocator_detail
}  // namespace torch_core
