#include "torch_core/csrc/runtime/allocator_history.h"

#include <array>
#include <string>
#include <utility>

namespace torch_core {
namespace {

constexpr std::array<std::pair<TraceAction, const char*>, 9> kNames = {{
    {TraceAction::kAlloc, "alloc"},
    {TraceAction::kFreeRequested, "free_requested"},
    {TraceAction::kFreeCompleted, "free_completed"},
    {TraceAction::kSegmentAlloc, "segment_alloc"},
    {TraceAction::kSegmentFree, "segment_free"},
    {TraceAction::kSegmentMap, "segment_map"},
    {TraceAction::kSegmentUnmap, "segment_unmap"},
    {TraceAction::kOom, "oom"},
    {TraceAction::kSnapshot, "snapshot"},
}};

thread_local std::string memory_metadata;

}  // namespace

void set_thread_memory_metadata(std::string metadata) { memory_metadata = std::move(metadata); }

const std::string& thread_memory_metadata() { return memory_metadata; }

const char* trace_action_name(TraceAction action) {
  for (const auto& [known, name] : kNames) {
    if (known == action) return name;
  }
  return "unknown";
}

bool trace_action_from_name(const std::string& name, TraceAction& action) {
  for (const auto& [known, known_name] : kNames) {
    if (name == known_name) {
      action = known;
      return true;
    }
  }
  return false;
}

}  // namespace torch_core
