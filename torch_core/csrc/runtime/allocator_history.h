// The caching allocator's memory history (torch.cuda.memory._record_memory_history):
// the stack that allocated each block, and a bounded trace of what the allocator did,
// in the shape of stock's snapshot ("frames" of blocks, "device_traces").
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "torch_core/csrc/runtime/device_runtime.h"

namespace torch_core {

struct StackFrame {
  std::string filename;
  std::string name;
  int line = 0;
};

// Innermost frame first; shared by a block and the trace entries that name it.
using Traceback = std::shared_ptr<const std::vector<StackFrame>>;

enum class TraceAction {
  kAlloc,          // a block handed out ("size" is the caller's)
  kFreeRequested,  // the caller freed it
  kFreeCompleted,  // ... and it is reusable (after the events of record_stream)
  kSegmentAlloc,   // memory taken from the runtime
  kSegmentFree,    // memory given back to the runtime
  kSegmentMap,     // pages mapped into an expandable segment
  kSegmentUnmap,   // ... and unmapped from it
  kOom,            // a request that failed ("device_free": what the runtime has left)
  kSnapshot,       // a snapshot was taken
};

// Stock's spelling: "alloc", "free_requested", "free_completed", "segment_alloc",
// "segment_free", "segment_map", "segment_unmap", "oom", "snapshot".
const char* trace_action_name(TraceAction action);
// The action so named; false for an unknown name.
bool trace_action_from_name(const std::string& name, TraceAction& action);

struct TraceEntry {
  TraceAction action = TraceAction::kAlloc;
  std::uintptr_t address = 0;
  std::size_t size = 0;
  StreamHandle stream = nullptr;
  int64_t time_us = 0;          // since the epoch of the system clock
  std::size_t device_free = 0;  // kOom only
  Traceback frames;             // may be null: not recorded
  std::string user_metadata;    // the recording thread's, when the entry was made
};

// The text the calling thread attaches to the trace entries it records from now on
// (torch.cuda.memory._set_memory_metadata; empty: none). Per thread, as stock's: it
// labels a region of the caller's code, on every device.
void set_thread_memory_metadata(std::string metadata);
const std::string& thread_memory_metadata();

// What is recorded. The stacks are gathered by `gather`, outside the allocator's locks,
// only for the calls that record them.
struct HistorySettings {
  bool blocks = false;         // each live block's allocation stack ("state" or "all")
  bool trace = false;          // the trace of actions ("all")
  bool alloc_stacks = false;   // stacks of allocations (context "state", "alloc", "all")
  bool free_stacks = false;    // stacks of frees too (context "all")
  bool trace_stacks = false;   // trace entries keep their stacks (context "alloc", "all")
  std::size_t max_entries = std::numeric_limits<std::size_t>::max();  // per device, newest kept
  std::set<TraceAction> skip;  // actions left out of the trace
  std::function<Traceback()> gather;  // empty: no stacks

  bool enabled() const { return blocks || trace; }
};

}  // namespace torch_core
