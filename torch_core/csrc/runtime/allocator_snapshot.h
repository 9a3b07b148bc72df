// What the caching device allocator holds, segment by segment (the data behind
// torch.cuda.memory_snapshot()["segments"]).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "torch_core/csrc/runtime/allocator_history.h"
#include "torch_core/csrc/runtime/device_runtime.h"

namespace torch_core {

// A private pool's id (c10::MempoolId_t); {0, 0} stands for the default pools.
using PoolId = std::pair<std::uint64_t, std::uint64_t>;

enum class BlockState {
  kActiveAllocated,    // handed out
  kActivePendingFree,  // freed, waiting for events on streams it was used on
  kInactive,           // cached, reusable
};

// "active_allocated", "active_pending_free", "inactive" (PyTorch's spelling).
inline const char* block_state_name(BlockState state) {
  switch (state) {
    case BlockState::kActiveAllocated:
      return "active_allocated";
    case BlockState::kActivePendingFree:
      return "active_pending_free";
    case BlockState::kInactive:
      break;
  }
  return "inactive";
}

struct BlockInfo {
  std::uintptr_t address = 0;
  std::size_t size = 0;
  std::size_t requested_size = 0;  // 0 unless allocated
  BlockState state = BlockState::kInactive;
  Traceback frames;  // the allocating stack, when memory history recorded it
};

struct SegmentInfo {
  int device = 0;
  std::uintptr_t address = 0;
  std::size_t total_size = 0;
  std::size_t allocated_size = 0;
  std::size_t active_size = 0;
  std::size_t requested_size = 0;
  StreamHandle stream = nullptr;
  bool is_large = false;  // segment_type "large" or "small"
  PoolId pool_id{0, 0};  // the private pool it belongs to; {0, 0}: the default pools
  // Mapped pages of an expandable segment: each run of adjacent ones is a segment here,
  // as in stock's snapshots.
  bool is_expandable = false;
  std::vector<BlockInfo> blocks;  // in address order
};

}  // namespace torch_core
