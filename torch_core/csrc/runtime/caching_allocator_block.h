// Internal to the caching allocator: blocks (pieces of runtime segments) and the pools
// of cached blocks they are found in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <set>
#include <utility>

#include "torch_core/csrc/runtime/allocator_history.h"
#include "torch_core/csrc/runtime/allocator_snapshot.h"
#include "torch_core/csrc/runtime/device_runtime.h"
#include "torch_core/csrc/runtime/segment_source.h"

namespace torch_core {
namespace caching_allocator_detail {

struct BlockPool;
struct ExpandableSegment;

// A stream a block was used on (record_stream), with the device the stream belongs to:
// the free-time event is made on that device, as stock's allocator does.
struct StreamUse {
  StreamHandle stream;
  int device;
  bool operator<(const StreamUse& other) const {
    return stream != other.stream ? stream < other.stream : device < other.device;
  }
};

struct Block {
  Block(StreamHandle on_stream, std::size_t bytes, BlockPool* owner, void* address)
      : stream(on_stream), size(bytes), pool(owner), ptr(address) {}

  StreamHandle stream;               // the stream it was allocated on; reused only there
  std::set<StreamUse> stream_uses;   // other streams it was used on (record_stream)
  std::size_t size;
  std::size_t requested_size = 0;    // the caller's size while allocated
  BlockPool* pool;
  void* ptr;
  bool allocated = false;
  // Neighbours within the same segment; both null for a whole, unsplit segment.
  Block* prev = nullptr;
  Block* next = nullptr;
  int event_count = 0;               // events still to complete before reuse
  int64_t gc_count_base = 0;         // pool's search count when it was cached
  Traceback context;                 // the allocating stack, while memory history records it
  // Of an expandable segment (expandable_segments:True): the segment, and whether the
  // block's range is backed by memory; unmapped blocks are in no pool, only the segment's.
  ExpandableSegment* expandable = nullptr;
  bool mapped = true;

  bool is_split() const { return prev != nullptr || next != nullptr; }
  // Takes over the range of `neighbour` (prev or next), which the caller then deletes.
  void absorb(const Block* neighbour) {
    if (prev == neighbour) {
      ptr = neighbour->ptr;
      prev = neighbour->prev;
      if (prev != nullptr) prev->next = this;
    } else {
      next = neighbour->next;
      if (next != nullptr) next->prev = this;
    }
    size += neighbour->size;
  }
  // A whole segment from the runtime (or a pool's source), which release gives back.
  bool is_whole_segment() const { return expandable == nullptr && !is_split(); }
};

struct ByAddress {
  bool operator()(const Block* a, const Block* b) const {
    return reinterpret_cast<std::uintptr_t>(a->ptr) < reinterpret_cast<std::uintptr_t>(b->ptr);
  }
};

// Address space reserved for the requests of one pool on one stream, mapped a page at a
// time as they need memory and unmapped again when the cache is released (stock's
// ExpandableSegment): a segment that grows in place, so freed pieces merge with what is
// mapped after them instead of stranding memory in segments of the wrong size.
struct ExpandableSegment {
  void* base;
  std::size_t reserved;            // a multiple of `page`
  std::size_t page;                // mapped and unmapped at once
  // Its unmapped blocks: everything between them is mapped.
  std::set<Block*, ByAddress> unmapped;
};

// Best fit per stream: ordered by (stream, size, address), so lower_bound on a key of the
// wanted stream and size finds the smallest block of that stream that fits.
struct BlockComparator {
  bool operator()(const Block* a, const Block* b) const {
    const auto stream_a = reinterpret_cast<std::uintptr_t>(a->stream);
    const auto stream_b = reinterpret_cast<std::uintptr_t>(b->stream);
    if (stream_a != stream_b) return stream_a < stream_b;
    if (a->size != b->size) return a->size < b->size;
    return reinterpret_cast<std::uintptr_t>(a->ptr) < reinterpret_cast<std::uintptr_t>(b->ptr);
  }
};

struct BlockPool {
  BlockPool(bool small, PoolId pool_id = {0, 0}, std::shared_ptr<const SegmentSource> from = nullptr)
      : is_small(small), id(pool_id), source(std::move(from)) {}

  void insert(Block* block) {
    block->gc_count_base = free_block_searches;
    blocks.insert(block);
  }
  // A cached block's age for garbage collection: searches of this pool since it was
  // cached (a clock that advances only while the allocator is in use).
  int64_t age(const Block* block) const { return free_block_searches - block->gc_count_base; }

  std::set<Block*, BlockComparator> blocks;  // cached (free, reusable) blocks
  const bool is_small;
  const PoolId id;
  bool no_split = false;  // a MemPool(no_split=True)'s: blocks are handed out whole
  // Where its segments come from; null: the runtime.
  const std::shared_ptr<const SegmentSource> source;
  int64_t segments = 0;  // segments taken from the runtime for this pool, cached or not
  int64_t free_block_searches = 0;  // advanced only when garbage collection is on
};

}  // namespace caching_allocator_detail
}  // namespace torch_core
