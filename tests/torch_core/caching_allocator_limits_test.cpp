// The caching device allocator's accounting and limits over the simulated runtime: exact
// statistics, out-of-memory retry and errors, memory fraction, garbage collection,
// max_split_size, snapshots (configuration parsing: caching_allocator_config_test.cpp).
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

void test_exact_stats() {
  SimulatedRuntime runtime(device_config());
  CachingAllocator allocator(runtime);
  StreamHandle stream = runtime.default_stream(0);

  void* a = allocator.allocate(0, 1000, stream);     // small: 1 KiB of a 2 MiB segment
  void* b = allocator.allocate(0, mib(3), stream);   // large: 3 MiB of a 20 MiB segment
  allocator.free(a);                                 // small segment whole again
  void* c = allocator.allocate(0, mib(5), stream);   // 5 MiB from b's 17 MiB remainder
  allocator.free(b);
  allocator.free(c);                                 // large segment whole again

  const DeviceStats s = allocator.stats(0);
  auto check = [](const torch_core::Stat& stat, int64_t current, int64_t peak,
                  int64_t allocated, int64_t freed) {
    CHECK_EQ(stat.current, current);
    CHECK_EQ(stat.peak, peak);
    CHECK_EQ(stat.allocated, allocated);
    CHECK_EQ(stat.freed, freed);
  };
  check(s.allocation[kAggregatePool], 0, 2, 3, 3);
  check(s.allocation[kSmallPool], 0, 1, 1, 1);
  check(s.allocation[kLargePool], 0, 2, 2, 2);
  check(s.active[kAggregatePool], 0, 2, 3, 3);
  check(s.segment[kAggregatePool], 2, 2, 2, 0);
  check(s.segment[kLargePool], 1, 1, 1, 0);
  check(s.allocated_bytes[kAggregatePool], 0, 8 * kMiB, 8 * kMiB + kKiB, 8 * kMiB + kKiB);
  check(s.allocated_bytes[kSmallPool], 0, kKiB, kKiB, kKiB);
  check(s.active_bytes[kAggregatePool], 0, 8 * kMiB, 8 * kMiB + kKiB, 8 * kMiB + kKiB);
  check(s.requested_bytes[kAggregatePool], 0, 8 * kMiB, 8 * kMiB + 1000, 8 * kMiB + 1000);
  check(s.reserved_bytes[kAggregatePool], 22 * kMiB, 22 * kMiB, 22 * kMiB, 0);
  check(s.reserved_bytes[kSmallPool], 2 * kMiB, 2 * kMiB, 2 * kMiB, 0);
  // Split pieces: a's remainder, b's remainder, then b itself once freed beside c.
  check(s.inactive_split[kAggregatePool], 0, 2, 3, 3);
  check(s.inactive_split[kLargePool], 0, 2, 2, 2);
  check(s.inactive_split_bytes[kAggregatePool], 0, 19 * kMiB - kKiB, 22 * kMiB - kKiB,
        22 * kMiB - kKiB);
  check(s.inactive_split_bytes[kLargePool], 0, 17 * kMiB, 20 * kMiB, 20 * kMiB);
  CHECK_EQ(s.num_device_alloc, 2);
  CHECK_EQ(s.num_device_free, 0);
  CHECK_EQ(s.num_alloc_retries, 0);
  CHECK_EQ(s.num_ooms, 0);
  CHECK_EQ(s.num_sync_all_streams, 0);

  const auto dict = torch_core::memory_stats_dict(s);
  CHECK_EQ(dict.at("reserved_bytes.all.current"), 22 * kMiB);
  CHECK_EQ(dict.at("inactive_split.large_pool.peak"), 2);
  CHECK_EQ(dict.at("num_device_alloc"), 2);

  // Peaks drop to the current values; accumulated counters to zero.
  void* d = allocator.allocate(0, 1000, stream);
  allocator.reset_peak_stats(0);
  DeviceStats reset = allocator.stats(0);
  CHECK_EQ(reset.allocated_bytes[kAggregatePool].peak, kKiB);
  CHECK_EQ(reset.allocation[kAggregatePool].peak, 1);
  CHECK_EQ(reset.reserved_bytes[kAggregatePool].peak, 22 * kMiB);
  CHECK_EQ(reset.allocation[kAggregatePool].allocated, 4);  // untouched by a peak reset
  allocator.reset_accumulated_stats(0);
  reset = allocator.stats(0);
  CHECK_EQ(reset.allocation[kAggregatePool].allocated, 0);
  CHECK_EQ(reset.allocation[kAggregatePool].freed, 0);
  CHECK_EQ(reset.allocation[kAggregatePool].current, 1);  // current is never reset
  CHECK_EQ(reset.num_device_alloc, 0);
  allocator.free(d);

  // empty_cache gives every whole segment back.
  allocator.empty_cache();
  const DeviceStats empty = allocator.stats(0);
  CHECK_EQ(empty.reserved_bytes[kAggregatePool].current, 0);
  CHECK_EQ(empty.segment[kAggregatePool].current, 0);
  CHECK_EQ(empty.num_device_free, 2);
  CHECK_EQ(empty.num_sync_all_streams, 1);
  CHECK_EQ(allocator.memory_info(0).free_bytes, kDeviceBytes);
  CHECK_TRUE(allocator.snapshot().empty());
}

void test_out_of_memory_retry() {
  SimulatedRuntime runtime(device_config());
  CachingAllocator allocator(runtime);
  StreamHandle stream = runtime.default_stream(0);
  StreamHandle other = runtime.create_stream(0, 0);

  // One cached segment big enough: the allocator frees just that one and retries, and
  // keeps the rest of its cache (the small segment).
  void* a = allocator.allocate(0, mib(40), stream);
  allocator.free(a);
  allocator.free(allocator.allocate(0, 1000, stream));
  void* b = allocator.allocate(0, mib(40), other);  // cannot take a's block: other stream
  DeviceStats stats = allocator.stats(0);
  CHECK_EQ(stats.num_alloc_retries, 1);
  CHECK_EQ(stats.num_ooms, 0);
  CHECK_EQ(stats.num_device_free, 1);
  CHECK_EQ(stats.reserved_bytes[kAggregatePool].current, 42 * kMiB);
  CHECK_EQ(stats.reserved_bytes[kSmallPool].current, 2 * kMiB);
  allocator.free(b);
  allocator.empty_cache();

  // Several cached segments: none is big enough alone, so they are freed together.
  allocator.reset_accumulated_stats(0);
  std::vector<void*> parts;
  for (int i = 0; i < 3; ++i) parts.push_back(allocator.allocate(0, mib(20), stream));
  for (void* ptr : parts) allocator.free(ptr);
  void* big = allocator.allocate(0, mib(50), stream);
  stats = allocator.stats(0);
  CHECK_EQ(stats.num_alloc_retries, 1);
  CHECK_EQ(stats.num_device_free, 3);
  CHECK_EQ(stats.reserved_bytes[kAggregatePool].current, 50 * kMiB);
  allocator.free(big);
  runtime.destroy_stream(other);
}

void test_out_of_memory_error() {
  SimulatedRuntime runtime(device_config());
  CachingAllocator allocator(runtime, AllocatorConfig::parse("", "TORCH_SIM_ALLOC_CONF"),
                             "SIM");
  StreamHandle stream = runtime.default_stream(0);
  void* held = allocator.allocate(0, mib(30), stream);
  void* cached = allocator.allocate(0, mib(10), stream);
  allocator.free(cached);

  std::string message;
  try {
    allocator.allocate(0, mib(100), stream);
  } catch (const OutOfMemoryError& error) {
    message = error.what();
  }
  CHECK_TRUE(message.find("SIM out of memory") != std::string::npos);
  CHECK_TRUE(message.find("Tried to allocate 100.00 MiB") != std::string::npos);
  CHECK_TRUE(message.find("SIM device 0 has a total capacity of 64.00 MiB") !=
             std::string::npos);
  CHECK_TRUE(message.find("of which 34.00 MiB is free") != std::string::npos);
  CHECK_TRUE(message.find("30.00 MiB is allocated") != std::string::npos);
  CHECK_TRUE(message.find("Of the 30.00 MiB reserved") != std::string::npos);
  CHECK_TRUE(message.find("max_split_size_mb in TORCH_SIM_ALLOC_CONF") != std::string::npos);
  CHECK_TRUE(message.find("empty_cache()") != std::string::npos);
  // An OutOfMemoryError is a RuntimeError.
  CHECK_THROWS(allocator.allocate(0, mib(100), stream), RuntimeError, "out of memory");
  CHECK_THROWS(allocator.allocate(0, static_cast<std::size_t>(-1), stream), OutOfMemoryError,
               "Tried to allocate");

  DeviceStats stats = allocator.stats(0);
  CHECK_EQ(stats.num_ooms, 3);
  CHECK_EQ(stats.allocation[kAggregatePool].current, 1);
  // Still usable, with consistent books.
  void* after = allocator.allocate(0, mib(10), stream);
  allocator.free(after);
  allocator.free(held);
  allocator.empty_cache();
  stats = allocator.stats(0);
  CHECK_EQ(stats.reserved_bytes[kAggregatePool].current, 0);
  CHECK_EQ(stats.allocated_bytes[kAggregatePool].current, 0);
  CHECK_EQ(allocator.memory_info(0).free_bytes, kDeviceBytes);
}

void test_memory_fraction() {
  SimulatedRuntime runtime(device_config());
  CachingAllocator allocator(runtime);
  StreamHandle stream = runtime.default_stream(0);
  CHECK_THROWS(allocator.set_memory_fraction(0, 1.5), RuntimeError, "[0, 1]");
  allocator.set_memory_fraction(0, 0.5);  // 32 MiB
  void* fits = allocator.allocate(0, mib(30), stream);
  CHECK_THROWS(allocator.allocate(0, mib(4), stream), OutOfMemoryError, "memory fraction 0.5");
  allocator.free(fits);
  void* reused = allocator.allocate(0, mib(4), stream);  // from the cache: no new memory
  allocator.free(reused);
}

void test_garbage_collection() {
  SimulatedRuntime runtime(device_config());
  // Collect when more than 0.7 * 64 MiB = 44.8 MiB is reserved.
  CachingAllocator allocator(runtime, config_of("garbage_collection_threshold:0.7"));
  std::vector<StreamHandle> streams;
  for (int i = 0; i < 4; ++i) streams.push_back(runtime.create_stream(0, 0));

  allocator.free(allocator.allocate(0, mib(20), streams[0]));  // cached first: oldest
  allocator.free(allocator.allocate(0, mib(20), streams[1]));  // cached later
  void* c = allocator.allocate(0, mib(2), streams[2]);  // 40 MiB reserved: under; now 60
  CHECK_EQ(value_of(allocator.stats(0).num_device_free), 0);
  // 60 MiB reserved: before asking the runtime, the allocator frees the oldest cached
  // segment (streams[0]'s) and keeps the younger one.
  void* d = allocator.allocate(0, mib(2), streams[3]);
  const DeviceStats stats = allocator.stats(0);
  CHECK_EQ(stats.num_device_free, 1);
  CHECK_EQ(stats.num_alloc_retries, 0);  // made room before running out
  CHECK_EQ(stats.reserved_bytes[kAggregatePool].current, 60 * kMiB);
  bool kept_young = false;
  bool kept_old = false;
  for (const SegmentInfo& segment : allocator.snapshot()) {
    kept_young = kept_young || segment.stream == streams[1];
    kept_old = kept_old || segment.stream == streams[0];
  }
  CHECK_TRUE(kept_young);
  CHECK_TRUE(!kept_old);
  allocator.free(c);
  allocator.free(d);
  allocator.empty_cache();
  for (StreamHandle stream : streams) runtime.destroy_stream(stream);
}

void test_max_split_size() {
  SimulatedRuntime runtime(device_config(1, 128 * kMiB));
  CachingAllocator allocator(runtime, config_of("max_split_size_mb:20"));
  StreamHandle stream = runtime.default_stream(0);
  void* oversize = allocator.allocate(0, mib(30), stream);
  DeviceStats stats = allocator.stats(0);
  CHECK_EQ(stats.oversize_allocations.current, 1);
  CHECK_EQ(stats.oversize_segments.current, 1);
  CHECK_EQ(stats.max_split_size, 20 * kMiB);
  allocator.free(oversize);
  // An oversize request takes a cached oversize block less than 20 MiB larger, unsplit.
  CHECK_TRUE(allocator.allocate(0, mib(25), stream) == oversize);
  CHECK_EQ(value_of(allocator.stats(0).allocated_bytes[kAggregatePool].current), 30 * kMiB);
  allocator.free(oversize);
  // A smaller request never takes an oversize block.
  void* normal = allocator.allocate(0, mib(5), stream);
  CHECK_TRUE(normal != oversize);
  stats = allocator.stats(0);
  CHECK_EQ(stats.segment[kAggregatePool].current, 2);
  CHECK_EQ(stats.oversize_allocations.current, 0);
  allocator.free(normal);
  allocator.empty_cache();

  // Nor does an oversize request take one 20 MiB (max_non_split_rounding_mb) or more
  // larger than itself: 44 MiB is kept for requests of 24 MiB and up.
  void* huge = allocator.allocate(0, mib(44), stream);
  allocator.free(huge);
  void* smaller = allocator.allocate(0, mib(22), stream);
  CHECK_TRUE(smaller != huge);
  void* close = allocator.allocate(0, mib(30), stream);
  CHECK_TRUE(close == huge);
  CHECK_EQ(value_of(allocator.stats(0).allocated_bytes[kAggregatePool].current), 66 * kMiB);
  allocator.free(smaller);
  allocator.free(close);
}

void test_snapshot() {
  SimulatedRuntime runtime(device_config(2));
  CachingAllocator allocator(runtime);
  StreamHandle stream0 = runtime.default_stream(0);
  StreamHandle stream1 = runtime.default_stream(1);
  StreamHandle side = runtime.create_stream(0, 0);
  Gate gate;
  gate.hold(runtime, side);

  void* a = allocator.allocate(0, 1000, stream0);
  void* b = allocator.allocate(0, 3000, stream0);
  void* c = allocator.allocate(0, 2000, stream0);
  allocator.record_stream(b, 0, side);
  allocator.free(b);  // pending on the side stream
  allocator.free(c);  // inactive, merged with the remainder
  void* large = allocator.allocate(0, mib(3), stream0);
  void* remote = allocator.allocate(1, mib(12), stream1);

  const std::vector<SegmentInfo> segments = allocator.snapshot();
  CHECK_EQ(segments.size(), 3u);
  CHECK_EQ(segments[0].device, 0);
  CHECK_EQ(segments[1].device, 0);
  CHECK_EQ(segments[2].device, 1);
  CHECK_TRUE(segments[0].address < segments[1].address);

  const SegmentInfo* small = segment_at(segments, a);
  CHECK_TRUE(small != nullptr);
  if (small != nullptr) {
    CHECK_TRUE(!small->is_large);
    CHECK_EQ(small->stream, stream0);
    CHECK_EQ(small->total_size, static_cast<std::size_t>(2 * kMiB));
    CHECK_EQ(small->allocated_size, 1024u);
    CHECK_EQ(small->active_size, 1024u + 3072u);
    CHECK_EQ(small->requested_size, 1000u);
    CHECK_EQ(small->blocks.size(), 3u);
    if (small->blocks.size() == 3) {
      CHECK_TRUE(small->blocks[0].state == BlockState::kActiveAllocated);
      CHECK_EQ(small->blocks[0].size, 1024u);
      CHECK_EQ(small->blocks[0].requested_size, 1000u);
      CHECK_TRUE(small->blocks[1].state == BlockState::kActivePendingFree);
      CHECK_EQ(small->blocks[1].size, 3072u);
      CHECK_EQ(small->blocks[1].address, reinterpret_cast<std::uintptr_t>(b));
      CHECK_TRUE(small->blocks[2].state == BlockState::kInactive);
      CHECK_EQ(small->blocks[2].size, static_cast<std::size_t>(2 * kMiB - 4096));
      CHECK_EQ(std::string(torch_core::block_state_name(small->blocks[1].state)),
               "active_pending_free");
    }
  }
  const SegmentInfo* large_segment = segment_at(segments, large);
  CHECK_TRUE(large_segment != nullptr);
  if (large_segment != nullptr) {
    CHECK_TRUE(large_segment->is_large);
    CHECK_EQ(large_segment->total_size, static_cast<std::size_t>(20 * kMiB));
    CHECK_EQ(large_segment->blocks.size(), 2u);
  }
  CHECK_EQ(segments[2].stream, stream1);
  CHECK_EQ(segments[2].total_size, static_cast<std::size_t>(12 * kMiB));
  CHECK_EQ(value_of(allocator.stats(1).reserved_bytes[kAggregatePool].current), 12 * kMiB);
  CHECK_EQ(value_of(allocator.stats(0).reserved_bytes[kAggregatePool].current), 22 * kMiB);

  gate.open();
  for (void* ptr : {a, large, remote}) allocator.free(ptr);
  allocator.empty_cache();
  CHECK_TRUE(allocator.snapshot().empty());
  runtime.destroy_stream(side);
}

}  // namespace

int main() {
  cc_check::run("exact_stats", test_exact_stats);
  cc_check::run("out_of_memory_retry", test_out_of_memory_retry);
  cc_check::run("out_of_memory_error", test_out_of_memory_error);
  cc_check::run("memory_fraction", test_memory_fraction);
  cc_check::run("garbage_collection", test_garbage_collection);
  cc_check::run("max_split_size", test_max_split_size);
  cc_check::run("snapshot", test_snapshot);
  return cc_check::summary();
}
