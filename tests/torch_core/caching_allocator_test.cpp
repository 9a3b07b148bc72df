// The caching device allocator over the simulated runtime: reuse, pools, splitting and
// merging, rounding, stream safety, empty_cache, concurrency, bad arguments.
// Stream-safety tests hold a stream on a gate instead of sleeping, so a block reused too
// early shows up every time rather than depending on the scheduler.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tests/cc_check/check.h"
#include "tests/torch_core/allocator_test_support.h"
#include "tests/torch_core/stream_gate.h"
#include "torch_core/csrc/runtime/allocator_sizes.h"
#include "torch_core/csrc/runtime/caching_allocator.h"
#include "torch_core/csrc/runtime/simulated_runtime.h"

namespace {

using namespace allocator_test;  // NOLINT: the tests' shared vocabulary

void test_reuse() {
  SimulatedRuntime runtime(device_config());
  CachingAllocator allocator(runtime);
  StreamHandle stream = runtime.default_stream(0);
  StreamHandle other = runtime.create_stream(0, 0);

  void* first = allocator.allocate(0, 1000, stream);
  allocator.free(first);
  CHECK_EQ(allocator.allocate(0, 1000, stream), first);  // the cached block comes back
  allocator.free(first);
  CHECK_EQ(allocator.allocate(0, 700, stream), first);  // any size that fits it
  allocator.free(first);

  // Another stream never gets it: the block may still be in use by queued work.
  void* elsewhere = allocator.allocate(0, 1000, other);
  CHECK_TRUE(elsewhere != first);
  CHECK_EQ(value_of(allocator.stats(0).num_device_alloc), 2);
  allocator.free(elsewhere);

  CHECK_EQ(allocator.allocate(0, 0, stream), static_cast<void*>(nullptr));
  allocator.free(nullptr);  // ignored
  runtime.destroy_stream(other);
}

void test_pools_and_segment_sizes() {
  SimulatedRuntime runtime(device_config());
  CachingAllocator allocator(runtime);
  StreamHandle stream = runtime.default_stream(0);

  // >= 10 MiB: a segment of its own, rounded to 2 MiB; the 1 MiB - 512 left over is too
  // small to split off a large block, so the block keeps it.
  void* large = allocator.allocate(0, mib(11) + 1, stream);
  DeviceStats stats = allocator.stats(0);
  CHECK_EQ(stats.reserved_bytes[kLargePool].current, 12 * kMiB);
  CHECK_EQ(stats.allocated_bytes[kLargePool].current, 12 * kMiB);

  void* small = allocator.allocate(0, mib(1), stream);  // <= 1 MiB: a 2 MiB small segment
  stats = allocator.stats(0);
  CHECK_EQ(stats.reserved_bytes[kSmallPool].current, 2 * kMiB);
  CHECK_EQ(stats.allocated_bytes[kSmallPool].current, kMiB);

  void* medium = allocator.allocate(0, mib(1) + 1, stream);  // 1..10 MiB: 20 MiB segment
  stats = allocator.stats(0);
  CHECK_EQ(stats.reserved_bytes[kLargePool].current, 32 * kMiB);
  CHECK_EQ(stats.allocated_bytes[kLargePool].current, 12 * kMiB + kMiB + 512);
  CHECK_EQ(stats.segment[kLargePool].current, 2);
  CHECK_EQ(stats.segment[kSmallPool].current, 1);
  CHECK_EQ(stats.segment[kAggregatePool].current, 3);
  CHECK_EQ(stats.reserved_bytes[kAggregatePool].current, 34 * kMiB);

  // The medium block's 20 MiB segment serves the next 1..10 MiB requests: no new segment.
  void* next = allocator.allocate(0, mib(5), stream);
  CHECK_TRUE(bytes(next) == bytes(medium) + kMiB + 512);
  CHECK_EQ(value_of(allocator.stats(0).segment[kLargePool].current), 2);
  allocator.free(next);

  for (void* ptr : {small, medium, large}) allocator.free(ptr);
}

void test_rounding() {
  namespace sizes = torch_core::allocator_sizes;
  const AllocatorConfig plain;
  CHECK_EQ(sizes::round_size(1, plain), 512u);
  CHECK_EQ(sizes::round_size(512, plain), 512u);
  CHECK_EQ(sizes::round_size(513, plain), 1024u);
  CHECK_EQ(sizes::round_size(mib(5) + 1, plain), mib(5) + 512);
  const AllocatorConfig four = config_of("roundup_power2_divisions:4");
  CHECK_EQ(sizes::round_size(mib(5) + 1, four), mib(6));  // steps of 1 MiB in [4, 8) MiB
  CHECK_EQ(sizes::round_size(mib(4), four), mib(4));      // powers of two stay
  CHECK_EQ(sizes::round_size(4600, four), 5120u);         // > 512 * 4: steps of 1 KiB
  CHECK_EQ(sizes::round_size(1000, four), 1024u);         // below 512 * 4: 512 granularity
  CHECK_EQ(sizes::round_size(4600, plain), 4608u);
  CHECK_EQ(sizes::segment_size(mib(1)), mib(2));
  CHECK_EQ(sizes::segment_size(mib(1) + 512), mib(20));
  CHECK_EQ(sizes::segment_size(mib(10)), mib(10));
  CHECK_EQ(sizes::segment_size(mib(10) + 512), mib(12));

  SimulatedRuntime runtime(device_config());
  CachingAllocator allocator(runtime, four);
  StreamHandle stream = runtime.default_stream(0);
  void* tiny = allocator.allocate(0, 1, stream);
  void* odd = allocator.allocate(0, mib(5) + 1, stream);
  const DeviceStats stats = allocator.stats(0);
  CHECK_EQ(stats.allocated_bytes[kAggregatePool].current, 512 + 6 * kMiB);
  CHECK_EQ(stats.requested_bytes[kAggregatePool].current, 1 + 5 * kMiB + 1);
  allocator.free(tiny);
  allocator.free(odd);
  CHECK_EQ(value_of(allocator.stats(0).requested_bytes[kAggregatePool].current), 0);
}

void test_split_and_merge() {
  SimulatedRuntime runtime(device_config());
  CachingAllocator allocator(runtime);
  StreamHandle stream = runtime.default_stream(0);

  void* a = allocator.allocate(0, 1000, stream);
  DeviceStats stats = allocator.stats(0);
  CHECK_EQ(stats.inactive_split[kSmallPool].current, 1);  // the rest of the 2 MiB segment
  CHECK_EQ(stats.inactive_split_bytes[kSmallPool].current, 2 * kMiB - kKiB);

  void* b = allocator.allocate(0, 1000, stream);
  CHECK_TRUE(bytes(b) == bytes(a) + 1024);  // carved from the same segment, next to a
  stats = allocator.stats(0);
  CHECK_EQ(stats.inactive_split[kSmallPool].current, 1);
  CHECK_EQ(stats.inactive_split_bytes[kSmallPool].current, 2 * kMiB - 2 * kKiB);
  CHECK_EQ(stats.segment[kSmallPool].current, 1);

  allocator.free(a);  // its neighbour b is in use: a stays a separate inactive piece
  stats = allocator.stats(0);
  CHECK_EQ(stats.inactive_split[kSmallPool].current, 2);
  CHECK_EQ(stats.inactive_split_bytes[kSmallPool].current, 2 * kMiB - kKiB);

  allocator.free(b);  // merges with both neighbours: the segment is whole again
  stats = allocator.stats(0);
  CHECK_EQ(stats.inactive_split[kSmallPool].current, 0);
  CHECK_EQ(stats.inactive_split_bytes[kSmallPool].current, 0);
  const std::vector<SegmentInfo> segments = allocator.snapshot();
  CHECK_EQ(segments.size(), 1u);
  CHECK_EQ(segments[0].blocks.size(), 1u);
  CHECK_EQ(segments[0].blocks[0].size, static_cast<std::size_t>(2 * kMiB));

  // Large pool: only a remainder above 1 MiB is split off.
  void* split = allocator.allocate(0, mib(3), stream);  // 20 MiB segment, 17 MiB left
  CHECK_EQ(value_of(allocator.stats(0).inactive_split_bytes[kLargePool].current), 17 * kMiB);
  void* whole = allocator.allocate(0, mib(19), stream);  // 20 MiB segment, 1 MiB left: kept
  stats = allocator.stats(0);
  CHECK_EQ(stats.allocated_bytes[kLargePool].current, 3 * kMiB + 20 * kMiB);
  CHECK_EQ(stats.requested_bytes[kLargePool].current, 22 * kMiB);
  CHECK_EQ(stats.inactive_split[kLargePool].current, 1);
  allocator.free(split);
  allocator.free(whole);
  CHECK_EQ(value_of(allocator.stats(0).inactive_split[kLargePool].current), 0);
}

// A block used on another device's stream: its free-time event is made on that device
// (recording device 0's event on device 1's stream is an error the runtime refuses), and
// the block comes back once the stream passes it, with the stats back to zero.

void test_record_stream_of_another_device() {
  SimulatedRuntime runtime(device_config(2));
  CachingAllocator allocator(runtime);
  StreamHandle stream = runtime.default_stream(0);
  StreamHandle other = runtime.create_stream(1, 0);
  Gate gate;
  gate.hold(runtime, other);
  void* used = allocator.allocate(0, 1000, stream);
  allocator.record_stream(used, 1, other);
  allocator.free(used);  // threw before, after reducing the stats: the block leaked
  CHECK_EQ(value_of(allocator.stats(0).active[kAggregatePool].current), 1);  // pending
  void* meanwhile = allocator.allocate(0, 1000, stream);
  CHECK_TRUE(meanwhile != used);
  gate.open();
  runtime.synchronize_stream(other);
  void* after = allocator.allocate(0, 1000, stream);
  CHECK_EQ(after, used);
  allocator.free(after);
  allocator.free(meanwhile);
  allocator.empty_cache();
  CHECK_EQ(allocator.stats(0).reserved_bytes[kAggregatePool].current, 0);
  runtime.destroy_stream(other);
}

void test_record_stream() {
  SimulatedRuntime runtime(device_config());
  CachingAllocator allocator(runtime);
  StreamHandle stream = runtime.default_stream(0);
  StreamHandle side = runtime.create_stream(0, 0);

  Gate gate;
  gate.hold(runtime, side);
  void* used = allocator.allocate(0, 1000, stream);
  std::memset(used, 0, 1000);
  std::atomic<bool> side_done{false};
  // Slow work on the side stream still reads the block after the caller frees it.
  runtime.enqueue(side, [used, &side_done] {
    volatile char sink = bytes(used)[0];
    (void)sink;
    side_done = true;
  });
  allocator.record_stream(used, 0, side);
  allocator.record_stream(used, 0, stream);  // its own stream: nothing to wait for
  allocator.free(used);

  DeviceStats stats = allocator.stats(0);
  CHECK_EQ(stats.allocation[kAggregatePool].current, 0);
  CHECK_EQ(stats.active[kAggregatePool].current, 1);  // pending its event
  const std::vector<SegmentInfo> pending = allocator.snapshot();
  CHECK_EQ(pending.size(), 1u);
  CHECK_TRUE(pending[0].blocks[0].state == BlockState::kActivePendingFree);
  CHECK_EQ(pending[0].active_size, 1024u);

  // While the side stream has not passed the event, the block is not handed out.
  void* meanwhile = allocator.allocate(0, 1000, stream);
  CHECK_TRUE(meanwhile != used);
  void* again = allocator.allocate(0, 1000, stream);
  CHECK_TRUE(again != used);

  gate.open();
  runtime.synchronize_stream(side);
  CHECK_TRUE(side_done.load());
  void* after = allocator.allocate(0, 1000, stream);  // best fit: the 1 KiB piece
  CHECK_EQ(after, used);
  stats = allocator.stats(0);
  CHECK_EQ(stats.active[kAggregatePool].current, 3);
  for (void* ptr : {meanwhile, again, after}) allocator.free(ptr);
  CHECK_EQ(value_of(allocator.stats(0).active[kAggregatePool].current), 0);
  CHECK_THROWS(allocator.record_stream(used, 0, side), RuntimeError, "not a live allocation");
  runtime.destroy_stream(side);
}

// One scripted sequence, every statistic checked against hand-worked values.

void test_empty_cache_waits_for_events() {
  SimulatedRuntime runtime(device_config());
  CachingAllocator allocator(runtime);
  StreamHandle stream = runtime.default_stream(0);
  StreamHandle side = runtime.create_stream(0, 0);
  Gate gate;
  gate.hold(runtime, side);
  std::atomic<bool> side_done{false};
  runtime.enqueue(side, [&side_done] { side_done = true; });
  void* ptr = allocator.allocate(0, mib(4), stream);
  allocator.record_stream(ptr, 0, side);
  allocator.free(ptr);
  std::thread opener([&gate] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    gate.open();
  });
  allocator.empty_cache();  // waits for the side stream's event before releasing
  CHECK_TRUE(side_done.load());
  CHECK_EQ(value_of(allocator.stats(0).reserved_bytes[kAggregatePool].current), 0);
  CHECK_EQ(allocator.memory_info(0).free_bytes, kDeviceBytes);
  opener.join();
  runtime.destroy_stream(side);
}

void test_threads() {
  constexpr int kThreads = 8;
  constexpr int kIterations = 300;
  SimulatedRuntime runtime(device_config(1, 512 * kMiB));
  CachingAllocator allocator(runtime);
  StreamHandle streams[2] = {runtime.default_stream(0), runtime.create_stream(0, 0)};
  std::atomic<int64_t> requested_total{0};
  std::atomic<int> overlaps{0};

  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      StreamHandle stream = streams[t % 2];
      std::vector<std::pair<char*, std::size_t>> live;
      uint32_t state = 1234u + static_cast<uint32_t>(t);
      for (int i = 0; i < kIterations; ++i) {
        state = state * 1664525u + 1013904223u;
        // Mostly small sizes, some large ones, up to ~3 MiB.
        const std::size_t size =
            (state >> 8) % 4 == 0 ? 1 + (state >> 10) % (3 << 20) : 1 + (state >> 10) % 4096;
        char* ptr = static_cast<char*>(allocator.allocate(0, size, stream));
        requested_total += static_cast<int64_t>(size);
        ptr[0] = static_cast<char>(t);
        ptr[size - 1] = static_cast<char>(t);
        live.emplace_back(ptr, size);
        if (live.size() > 4 || (state & 1) != 0) {
          const auto [old, old_size] = live.front();
          live.erase(live.begin());
          // Another thread handed the same bytes would have overwritten the marks.
          if (old[0] != static_cast<char>(t) || old[old_size - 1] != static_cast<char>(t))
            ++overlaps;
          allocator.free(old);
        }
      }
      for (const auto& [ptr, size] : live) allocator.free(ptr);
    });
  }
  for (std::thread& thread : threads) thread.join();

  CHECK_EQ(overlaps.load(), 0);
  const DeviceStats stats = allocator.stats(0);
  const int64_t total = kThreads * kIterations;
  CHECK_EQ(stats.allocation[kAggregatePool].current, 0);
  CHECK_EQ(stats.allocation[kAggregatePool].allocated, total);
  CHECK_EQ(stats.allocation[kAggregatePool].freed, total);
  CHECK_EQ(stats.allocation[kSmallPool].allocated + stats.allocation[kLargePool].allocated,
           total);
  CHECK_EQ(stats.active[kAggregatePool].current, 0);
  CHECK_EQ(stats.allocated_bytes[kAggregatePool].current, 0);
  CHECK_EQ(stats.requested_bytes[kAggregatePool].current, 0);
  CHECK_EQ(stats.requested_bytes[kAggregatePool].allocated, requested_total.load());
  CHECK_EQ(stats.inactive_split[kAggregatePool].current, 0);  // everything merged back
  CHECK_EQ(stats.inactive_split_bytes[kAggregatePool].current, 0);
  int64_t snapshot_bytes = 0;
  for (const SegmentInfo& segment : allocator.snapshot()) {
    snapshot_bytes += static_cast<int64_t>(segment.total_size);
    CHECK_EQ(segment.blocks.size(), 1u);
  }
  CHECK_EQ(snapshot_bytes, stats.reserved_bytes[kAggregatePool].current);
  CHECK_EQ(stats.num_device_alloc - stats.num_device_free,
           stats.segment[kAggregatePool].current);
  allocator.empty_cache();
  CHECK_EQ(value_of(allocator.stats(0).reserved_bytes[kAggregatePool].current), 0);
  CHECK_EQ(allocator.memory_info(0).free_bytes, mib(512));
  runtime.destroy_stream(streams[1]);
}

void test_bad_arguments() {
  SimulatedRuntime runtime(device_config(2));
  CachingAllocator allocator(runtime);
  StreamHandle stream = runtime.default_stream(0);
  CHECK_EQ(allocator.device_count(), 2);
  CHECK_THROWS(allocator.allocate(2, 100, stream), std::out_of_range, "[0, 2)");
  CHECK_THROWS(allocator.stats(-1), std::out_of_range, "device -1");
  int local = 0;
  CHECK_THROWS(allocator.free(&local), RuntimeError, "not allocated by this allocator");
  void* ptr = allocator.allocate(0, 100, stream);
  allocator.free(ptr);
  CHECK_THROWS(allocator.free(ptr), RuntimeError, "freed already");
}

// Destroying the allocator gives back everything, still-allocated blocks included.

void test_destruction_returns_memory() {
  SimulatedRuntime runtime(device_config());
  {
    CachingAllocator allocator(runtime);
    StreamHandle stream = runtime.default_stream(0);
    allocator.allocate(0, mib(3), stream);
    allocator.free(allocator.allocate(0, 1000, stream));
    CHECK_TRUE(runtime.memory_info(0).free_bytes < kDeviceBytes);
  }
  CHECK_EQ(runtime.memory_info(0).free_bytes, kDeviceBytes);
}

}  // namespace

int main() {
  cc_check::run("reuse", test_reuse);
  cc_check::run("pools_and_segment_sizes", test_pools_and_segment_sizes);
  cc_check::run("rounding", test_rounding);
  cc_check::run("split_and_merge", test_split_and_merge);
  cc_check::run("record_stream_of_another_device", test_record_stream_of_another_device);
  cc_check::run("record_stream", test_record_stream);
  cc_check::run("empty_cache_waits_for_events", test_empty_cache_waits_for_events);
  cc_check::run("threads", test_threads);
  cc_check::run("bad_arguments", test_bad_arguments);
  cc_check::run("destruction_returns_memory", test_destruction_returns_memory);
  return cc_check::summary();
}
