// The caching allocator's private pools (the memory of CUDA graphs and MemPools) over the
// simulated runtime's stream capture: what a capture allocates comes from its pool and is
// never handed to eager work, pools are shared by id and given back once released,
// nothing waits on events or frees memory while a capture is underway, and a pool made
// with a segment source takes its memory from it; a use_on_oom pool lends its cache to a
// full device while it has users.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "tests/cc_check/check.h"
#include "tests/torch_core/allocator_test_support.h"
#include "torch_core/csrc/runtime/caching_allocator.h"
#include "torch_core/csrc/runtime/simulated_runtime.h"

namespace {

using namespace allocator_test;  // NOLINT: the tests' shared vocabulary
using torch_core::CaptureMode;
using torch_core::PoolId;

constexpr PoolId kPool{0, 1};

// Allocations on streams of `stream`'s current capture go to `pool` (as CUDAGraph does).
void begin_capture_into(SimulatedRuntime& runtime, CachingAllocator& allocator, StreamHandle stream,
                        PoolId pool) {
  runtime.begin_capture(stream, CaptureMode::kGlobal);
  const std::uint64_t id = runtime.capture_id(stream);
  allocator.begin_allocate_to_pool(0, pool, [&runtime, id](StreamHandle s) { return runtime.capture_id(s) == id; });
}

void end_capture_of(SimulatedRuntime& runtime, CachingAllocator& allocator, StreamHandle stream,
                    PoolId pool) {
  allocator.end_allocate_to_pool(0, pool);
  runtime.destroy_graph(runtime.end_capture(stream));
}

int64_t reserved(const CachingAllocator& allocator) {
  return value_of(allocator.stats(0).reserved_bytes[kAggregatePool].current);
}

void test_capture_allocates_from_its_pool() {
  SimulatedRuntime runtime(device_config());
  CachingAllocator allocator(runtime);
  StreamHandle capturing = runtime.create_stream(0, 0);
  StreamHandle eager = runtime.create_stream(0, 0);
  void* before = allocator.allocate(0, 1000, capturing);
  allocator.free(before);  // cached in the default small pool

  begin_capture_into(runtime, allocator, capturing, kPool);
  void* in_graph = allocator.allocate(0, 1000, capturing);
  CHECK_TRUE(in_graph != before);  // the default pool's cached block is not taken
  allocator.free(in_graph);
  CHECK_EQ(allocator.allocate(0, 1000, capturing), in_graph);  // reused within the pool
  void* beside = allocator.allocate(0, 1000, eager);  // not captured: the default pool
  CHECK_TRUE(beside != in_graph);
  end_capture_of(runtime, allocator, capturing, kPool);
  allocator.free(in_graph);

  // After the capture the pool's blocks serve nobody else.
  void* after = allocator.allocate(0, 1000, capturing);
  CHECK_EQ(after, before);
  const std::vector<SegmentInfo> segments = allocator.snapshot();
  const SegmentInfo* graph_segment = segment_at(segments, in_graph);
  CHECK_TRUE(graph_segment != nullptr);
  CHECK_TRUE(graph_segment->pool_id == kPool);
  CHECK_TRUE(segment_at(segments, before)->pool_id == (PoolId{0, 0}));

  // Released, the pool gives its segment back on the next empty_cache.
  const int64_t with_pool = reserved(allocator);
  allocator.release_pool(0, kPool);
  allocator.empty_cache();
  CHECK_EQ(reserved(allocator), with_pool - 2 * kMiB);  // the pool's small segment
  CHECK_THROWS(allocator.release_pool(0, kPool), RuntimeError, "no user to release");
  CHECK_THROWS(allocator.end_allocate_to_pool(0, kPool), RuntimeError, "nothing allocates to pool");
  CHECK_THROWS(allocator.begin_allocate_to_pool(0, {0, 0}, [](StreamHandle) { return true; }), RuntimeError,
               "default pools");

  // Released while still allocated to (a user's mistake), the pool stays until that ends.
  allocator.begin_allocate_to_pool(0, kPool, [](StreamHandle) { return true; });
  allocator.release_pool(0, kPool);
  allocator.empty_cache();
  allocator.free(allocator.allocate(0, 1000, eager));
  allocator.end_allocate_to_pool(0, kPool);
  allocator.empty_cache();
  for (void* ptr : {beside, after}) allocator.free(ptr);
  for (StreamHandle stream : {capturing, eager}) runtime.destroy_stream(stream);
}

void test_shared_pool_lives_until_its_last_user() {
  SimulatedRuntime runtime(device_config());
  CachingAllocator allocator(runtime);
  StreamHandle stream = runtime.create_stream(0, 0);
  for (int graph = 0; graph < 2; ++graph) {
    begin_capture_into(runtime, allocator, stream, kPool);
    allocator.free(allocator.allocate(0, mib(4), stream));
    end_capture_of(runtime, allocator, stream, kPool);
  }
  CHECK_EQ(reserved(allocator), static_cast<int64_t>(mib(20)));  // one segment: shared
  allocator.release_pool(0, kPool);
  allocator.empty_cache();
  CHECK_EQ(reserved(allocator), static_cast<int64_t>(mib(20)));  // one user left
  allocator.release_pool(0, kPool);
  allocator.empty_cache();
  CHECK_EQ(reserved(allocator), 0);
  runtime.destroy_stream(stream);
}

void test_nothing_waits_or_frees_during_capture() {
  SimulatedRuntime runtime(device_config(1, mib(32)));
  CachingAllocator allocator(runtime);
  StreamHandle stream = runtime.create_stream(0, 0);
  StreamHandle side = runtime.create_stream(0, 0);
  void* used = allocator.allocate(0, 1000, stream);
  void* cached = allocator.allocate(0, mib(4), stream);
  allocator.free(cached);  // a 20 MiB cached segment, free to give back outside capture

  begin_capture_into(runtime, allocator, stream, kPool);
  // A block used on another stream is freed without recording an event now ...
  allocator.record_stream(used, 0, side);
  allocator.free(used);
  CHECK_EQ(value_of(allocator.stats(0).active[kAggregatePool].current), 1);
  // ... and running out of memory raises instead of freeing cached segments.
  CHECK_THROWS(allocator.allocate(0, mib(16), stream), OutOfMemoryError, "out of memory");
  CHECK_EQ(reserved(allocator), static_cast<int64_t>(mib(22)));
  end_capture_of(runtime, allocator, stream, kPool);

  // Once it ends, the next allocation records the deferred event; once the side stream
  // passes it, the block comes back.
  allocator.free(allocator.allocate(0, 1000, stream));
  runtime.synchronize_stream(side);
  CHECK_EQ(allocator.allocate(0, 1000, stream), used);
  allocator.free(used);
  CHECK_EQ(value_of(allocator.stats(0).active[kAggregatePool].current), 0);
  allocator.release_pool(0, kPool);
  for (StreamHandle s : {stream, side}) runtime.destroy_stream(s);
}

// A pluggable allocator's functions over the runtime, counting what passes through them.
struct CountingSource {
  explicit CountingSource(SimulatedRuntime& runtime) : source(std::make_shared<torch_core::SegmentSource>()) {
    source->allocate = [this, &runtime](std::size_t bytes, int device, StreamHandle stream) {
      allocated.push_back(bytes);
      streams.push_back(stream);
      return runtime.allocate(device, bytes);
    };
    source->free = [this, &runtime](void* ptr, std::size_t bytes, int device, StreamHandle) {
      freed.push_back(bytes);
      runtime.free(device, ptr);
    };
  }
  std::shared_ptr<torch_core::SegmentSource> source;
  std::vector<std::size_t> allocated;
  std::vector<std::size_t> freed;
  std::vector<StreamHandle> streams;
};

void test_pool_with_a_segment_source() {
  SimulatedRuntime runtime(device_config());
  CachingAllocator allocator(runtime);
  CountingSource counting(runtime);
  StreamHandle stream = runtime.create_stream(0, 0);
  allocator.create_pool(0, kPool, counting.source);
  CHECK_EQ(allocator.pool_use_count(0, kPool), 1);
  CHECK_EQ(allocator.pool_use_count(0, PoolId{0, 99}), 0);
  CHECK_THROWS(allocator.create_pool(0, kPool, counting.source), RuntimeError, "exists already");

  allocator.begin_allocate_to_pool(0, kPool, [](StreamHandle) { return true; });
  CHECK_EQ(allocator.pool_use_count(0, kPool), 2);
  void* small = allocator.allocate(0, 1000, stream);
  void* large = allocator.allocate(0, mib(3), stream);
  allocator.end_allocate_to_pool(0, kPool);
  allocator.release_pool(0, kPool);
  CHECK_TRUE(counting.allocated == (std::vector<std::size_t>{mib(2), mib(20)}));
  CHECK_TRUE(counting.streams == (std::vector<StreamHandle>{stream, stream}));
  void* outside = allocator.allocate(0, 1000, stream);  // the default pool: the runtime
  CHECK_EQ(counting.allocated.size(), 2U);

  std::vector<void*> live = allocator.pool_live_allocations(0, kPool);
  std::sort(live.begin(), live.end());
  std::vector<void*> expected{small, large};
  std::sort(expected.begin(), expected.end());
  CHECK_TRUE(live == expected);
  CHECK_THROWS(allocator.pool_live_allocations(0, PoolId{0, 99}), RuntimeError, "Could not find pool");

  // Still used by the MemPool: its cache stays. Released, its segments go back whole
  // (the 20 MiB one was split for the 3 MiB block) through the source's free.
  allocator.free(small);
  allocator.free(large);
  CHECK_TRUE(allocator.pool_live_allocations(0, kPool).empty());
  allocator.empty_pool_cache(0, kPool);
  CHECK_TRUE(counting.freed.empty());
  allocator.release_pool(0, kPool);
  allocator.empty_pool_cache(0, kPool);
  std::sort(counting.freed.begin(), counting.freed.end());
  CHECK_TRUE(counting.freed == (std::vector<std::size_t>{mib(2), mib(20)}));
  CHECK_EQ(allocator.pool_use_count(0, kPool), 0);  // gone
  CHECK_EQ(reserved(allocator), static_cast<int64_t>(mib(2)));  // the default pool's segment
  allocator.free(outside);
  runtime.destroy_stream(stream);
}

}  // namespace

// A use_on_oom pool lends a cached block that fits to a default pool's request on a full
// device (of the same kind: its large blocks serve large requests only).
void test_use_on_oom_pool_is_a_last_resort_while_used() {
  SimulatedRuntime runtime(device_config());
  CachingAllocator allocator(runtime);
  StreamHandle stream = runtime.create_stream(0, 0);
  allocator.create_pool(0, kPool, nullptr, torch_core::PoolOptions{/*use_on_oom=*/true, /*no_split=*/false});
  allocator.begin_allocate_to_pool(0, kPool, [](StreamHandle) { return true; });
  void* pooled = allocator.allocate(0, 12 << 20, stream);
  allocator.end_allocate_to_pool(0, kPool);
  allocator.free(pooled);  // cached in the pool
  const double total = static_cast<double>(runtime.memory_info(0).total_bytes);
  allocator.set_memory_fraction(0, static_cast<double>(reserved(allocator) + (4 << 20)) / total);
  void* borrowed = allocator.allocate(0, 12 << 20, stream);
  CHECK_EQ(borrowed, pooled);
  allocator.free(borrowed);  // back to the pool it came from
  allocator.set_memory_fraction(0, static_cast<double>(reserved(allocator)) / total);
  // A small request finds no small block in the pool: nothing to lend.
  CHECK_THROWS(allocator.allocate(0, 1 << 20, stream), torch_core::OutOfMemoryError, "out of memory");
  allocator.set_memory_fraction(0, 1.0);
  allocator.release_pool(0, kPool);
  runtime.destroy_stream(stream);
}

int main() {
  cc_check::run("capture_allocates_from_its_pool", test_capture_allocates_from_its_pool);
  cc_check::run("shared_pool_lives_until_its_last_user", test_shared_pool_lives_until_its_last_user);
  cc_check::run("nothing_waits_or_frees_during_capture", test_nothing_waits_or_frees_during_capture);
  cc_check::run("pool_with_a_segment_source", test_pool_with_a_segment_source);
  cc_check::run("use_on_oom_pool_is_a_last_resort_while_used", test_use_on_oom_pool_is_a_last_resort_while_used);
  return cc_check::summary();
}
