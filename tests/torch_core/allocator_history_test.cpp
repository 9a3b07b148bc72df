// Memory history of the caching allocator (torch.cuda.memory._record_memory_history):
// which actions reach the trace, with what sizes and stacks, and the blocks' stacks.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tests/cc_check/check.h"
#include "torch_core/csrc/runtime/allocator_history.h"
#include "torch_core/csrc/runtime/caching_allocator.h"
#include "torch_core/csrc/runtime/simulated_runtime.h"

namespace {

using torch_core::CachingAllocator;
using torch_core::HistorySettings;
using torch_core::OutOfMemoryError;
using torch_core::SegmentInfo;
using torch_core::SimulatedConfig;
using torch_core::SimulatedRuntime;
using torch_core::StackFrame;
using torch_core::StreamHandle;
using torch_core::TraceAction;
using torch_core::TraceEntry;
using torch_core::Traceback;

constexpr std::size_t kMiB = std::size_t{1} << 20;

SimulatedConfig one_device() {
  SimulatedConfig config;
  config.device_count = 1;
  config.memory_bytes_per_device = 64 * kMiB;
  return config;
}

// A gatherer that names each stack by a counter, so the test can tell whose stack it is.
struct CountingGatherer {
  std::shared_ptr<int> calls = std::make_shared<int>(0);
  std::function<Traceback()> gather() const {
    return [calls = calls] {
      ++*calls;
      return std::make_shared<const std::vector<StackFrame>>(
          std::vector<StackFrame>{{"test.py", "caller_" + std::to_string(*calls), *calls}});
    };
  }
};

HistorySettings record_all(const CountingGatherer& gatherer) {
  HistorySettings settings;
  settings.blocks = settings.trace = true;
  settings.alloc_stacks = settings.free_stacks = settings.trace_stacks = true;
  settings.gather = gatherer.gather();
  return settings;
}

std::vector<std::string> actions(const std::vector<TraceEntry>& trace) {
  std::vector<std::string> names;
  for (const TraceEntry& entry : trace) names.emplace_back(torch_core::trace_action_name(entry.action));
  return names;
}

std::string frame_name(const Traceback& frames) {
  return frames == nullptr || frames->empty() ? "" : frames->front().name;
}

void test_trace_of_alloc_free_and_segments() {
  SimulatedRuntime runtime(one_device());
  CachingAllocator allocator(runtime);
  StreamHandle stream = runtime.default_stream(0);
  CountingGatherer gatherer;
  allocator.record_history(record_all(gatherer), /*clear_trace=*/false);
  CHECK_TRUE(allocator.history_enabled());

  void* ptr = allocator.allocate(0, 1000, stream);
  CHECK_EQ(frame_name(allocator.allocation_traceback(ptr)), std::string("caller_1"));
  allocator.free(ptr);
  CHECK_TRUE(allocator.allocation_traceback(ptr) == nullptr);
  allocator.empty_cache();

  const std::vector<TraceEntry> trace = allocator.trace(0);
  CHECK_TRUE(actions(trace) == (std::vector<std::string>{"segment_alloc", "alloc", "free_requested",
                                                         "free_completed", "segment_free"}));
  if (trace.size() == 5) {
    CHECK_EQ(trace[0].size, 2 * kMiB);  // the small pool's segment
    CHECK_EQ(trace[1].size, 1000u);     // what the caller asked for
    CHECK_EQ(trace[1].address, reinterpret_cast<std::uintptr_t>(ptr));
    CHECK_TRUE(trace[1].stream == stream);
    CHECK_EQ(frame_name(trace[1].frames), std::string("caller_1"));
    CHECK_EQ(frame_name(trace[2].frames), std::string("caller_2"));  // the free's own stack
    CHECK_TRUE(trace[1].time_us > 0 && trace[1].time_us <= trace[4].time_us);
  }
  CHECK_EQ(*gatherer.calls, 2);
}

void test_blocks_keep_their_stacks_in_snapshots() {
  SimulatedRuntime runtime(one_device());
  CachingAllocator allocator(runtime);
  StreamHandle stream = runtime.default_stream(0);
  CountingGatherer gatherer;
  HistorySettings state_only = record_all(gatherer);
  state_only.trace = state_only.free_stacks = state_only.trace_stacks = false;
  allocator.record_history(std::move(state_only), false);

  void* ptr = allocator.allocate(0, 3 * kMiB, stream);
  const std::vector<SegmentInfo> segments = allocator.snapshot();
  CHECK_EQ(segments.size(), 1u);
  if (!segments.empty() && !segments[0].blocks.empty()) {
    CHECK_EQ(frame_name(segments[0].blocks[0].frames), std::string("caller_1"));
  }
  CHECK_TRUE(allocator.trace(0).empty());  // "state": no trace
  allocator.free(ptr);
  CHECK_EQ(*gatherer.calls, 1);  // no stacks for frees
}

void test_bounded_trace_skip_and_stop() {
  SimulatedRuntime runtime(one_device());
  CachingAllocator allocator(runtime);
  StreamHandle stream = runtime.default_stream(0);
  CountingGatherer gatherer;
  HistorySettings settings = record_all(gatherer);
  settings.max_entries = 3;
  settings.skip = {TraceAction::kSegmentAlloc};
  allocator.record_history(std::move(settings), false);

  for (int i = 0; i < 4; ++i) allocator.free(allocator.allocate(0, 512, stream));
  std::vector<TraceEntry> trace = allocator.trace(0);
  CHECK_TRUE(actions(trace) ==
             (std::vector<std::string>{"alloc", "free_requested", "free_completed"}));

  // Out of memory is recorded with what the device had left.
  CHECK_THROWS(allocator.allocate(0, 1024 * kMiB, stream), OutOfMemoryError, "out of memory");
  trace = allocator.trace(0);
  CHECK_TRUE(!trace.empty() && trace.back().action == TraceAction::kOom);
  if (!trace.empty()) CHECK_EQ(trace.back().size, 1024 * kMiB);

  // Stopping keeps the trace unless asked to clear it; nothing more is recorded.
  allocator.record_history(HistorySettings{}, /*clear_trace=*/false);
  CHECK_TRUE(!allocator.history_enabled());
  const int calls = *gatherer.calls;
  allocator.free(allocator.allocate(0, 512, stream));
  CHECK_EQ(*gatherer.calls, calls);
  CHECK_EQ(allocator.trace(0).size(), 3u);
  allocator.record_history(HistorySettings{}, /*clear_trace=*/true);
  CHECK_TRUE(allocator.trace(0).empty());
}

void test_action_names() {
  TraceAction action{};
  CHECK_TRUE(torch_core::trace_action_from_name("free_requested", action));
  CHECK_TRUE(action == TraceAction::kFreeRequested);
  CHECK_TRUE(!torch_core::trace_action_from_name("freed", action));
  CHECK_EQ(std::string(torch_core::trace_action_name(TraceAction::kSegmentFree)),
           std::string("segment_free"));
}

}  // namespace

int main() {
  cc_check::run("trace_of_alloc_free_and_segments", test_trace_of_alloc_free_and_segments);
  cc_check::run("blocks_keep_their_stacks_in_snapshots",
                test_blocks_keep_their_stacks_in_snapshots);
  cc_check::run("bounded_trace_skip_and_stop", test_bounded_trace_skip_and_stop);
  cc_check::run("action_names", test_action_names);
  return cc_check::summary();
}
