// The caching allocator with expandable_segments:True over the simulated runtime's
// virtual memory: a stream's segment grows in place, freed pieces merge with what is
// mapped after them, empty_cache and out of memory unmap whole pages, and the statistics
// and snapshots say what is mapped.
#include <cstdint>
#include <vector>

#include "tests/cc_check/check.h"
#include "tests/torch_core/allocator_test_support.h"

namespace {

using namespace allocator_test;  // NOLINT: the tests' shared vocabulary

constexpr int64_t kLargePage = 20 * kMiB;  // a large pool's segment grows by this
constexpr int64_t kSmallPage = 2 * kMiB;

int64_t reserved(CachingAllocator& allocator, std::size_t pool = kAggregatePool) {
  return allocator.stats(0).reserved_bytes[pool].current;
}

int64_t device_used(SimulatedRuntime& runtime) {
  const auto info = runtime.memory_info(0);
  return static_cast<int64_t>(info.total_bytes - info.free_bytes);
}

void check_all_returned(CachingAllocator& allocator, SimulatedRuntime& runtime) {
  allocator.empty_cache();
  const DeviceStats stats = allocator.stats(0);
  CHECK_EQ(value_of(stats.reserved_bytes[kAggregatePool].current), 0);
  CHECK_EQ(value_of(stats.allocated_bytes[kAggregatePool].current), 0);
  CHECK_EQ(value_of(stats.active_bytes[kAggregatePool].current), 0);
  CHECK_EQ(value_of(stats.inactive_split[kAggregatePool].current), 0);
  CHECK_EQ(value_of(stats.inactive_split_bytes[kAggregatePool].current), 0);
  CHECK_EQ(device_used(runtime), 0);
}

void test_grows_in_place() {
  SimulatedRuntime runtime(device_config());
  CachingAllocator allocator(runtime, config_of("expandable_segments:True"));
  StreamHandle stream = runtime.default_stream(0);

  void* a = allocator.allocate(0, mib(12), stream);
  CHECK_EQ(reserved(allocator), kLargePage);
  // The next request continues the same segment: 8 MiB left mapped, one page more.
  void* b = allocator.allocate(0, mib(12), stream);
  CHECK_EQ(bytes(b), bytes(a) + mib(12));
  CHECK_EQ(reserved(allocator), 2 * kLargePage);
  CHECK_EQ(device_used(runtime), 2 * kLargePage);

  std::vector<SegmentInfo> segments = allocator.snapshot();
  CHECK_EQ(segments.size(), std::size_t{1});
  CHECK_TRUE(segments[0].is_expandable);
  CHECK_EQ(segments[0].address, reinterpret_cast<std::uintptr_t>(a));
  CHECK_EQ(segments[0].total_size, static_cast<std::size_t>(2 * kLargePage));
  CHECK_EQ(segments[0].allocated_size, mib(24));

  // Freed, the two merge with the mapped rest: a larger request reuses them in place.
  allocator.free(a);
  allocator.free(b);
  void* c = allocator.allocate(0, mib(36), stream);
  CHECK_EQ(c, a);
  CHECK_EQ(reserved(allocator), 2 * kLargePage);
  CHECK_EQ(value_of(allocator.stats(0).num_device_alloc), 2);  // two pages mapped in all
  allocator.free(c);
  check_all_returned(allocator, runtime);
  CHECK_EQ(value_of(allocator.stats(0).num_device_free), 1);  // both pages in one unmap
}

void test_small_requests_map_small_pages() {
  SimulatedRuntime runtime(device_config());
  CachingAllocator allocator(runtime, config_of("expandable_segments:True"));
  StreamHandle stream = runtime.default_stream(0);
  std::vector<void*> blocks;
  for (int i = 0; i < 5; ++i) blocks.push_back(allocator.allocate(0, 512 * kKiB, stream));
  CHECK_EQ(reserved(allocator, kSmallPool), 2 * kSmallPage);  // 2.5 MiB asked: two pages
  CHECK_EQ(reserved(allocator, kLargePool), 0);
  for (int i = 1; i < 5; ++i) CHECK_EQ(bytes(blocks[i]), bytes(blocks[i - 1]) + 512 * kKiB);
  for (void* block : blocks) allocator.free(block);
  check_all_returned(allocator, runtime);
}

// Releasing the cache unmaps only the whole pages inside free blocks; what is left of
// them stays cached, and a request can span a free piece, remapped pages and another.
void test_release_unmaps_whole_pages() {
  SimulatedRuntime runtime(device_config());
  CachingAllocator allocator(runtime, config_of("expandable_segments:True"));
  StreamHandle stream = runtime.default_stream(0);
  void* a = allocator.allocate(0, mib(12), stream);  // [0, 12) of page 0
  void* b = allocator.allocate(0, mib(30), stream);  // [12, 42): pages 1 and 2 mapped
  void* c = allocator.allocate(0, mib(12), stream);  // [42, 54)
  CHECK_EQ(reserved(allocator), 3 * kLargePage);
  allocator.free(b);
  allocator.empty_cache();  // page 1, [20, 40), is inside the free [12, 42)
  CHECK_EQ(reserved(allocator), 2 * kLargePage);
  CHECK_EQ(device_used(runtime), 2 * kLargePage);
  CHECK_EQ(allocator.snapshot().size(), std::size_t{2});  // two mapped runs
  CHECK_EQ(value_of(allocator.stats(0).inactive_split[kAggregatePool].current), 3);  // [12,20) [40,42) [54,60)

  void* again = allocator.allocate(0, mib(30), stream);  // 8 MiB + page 1 again + 2 MiB
  CHECK_EQ(again, static_cast<void*>(bytes(a) + mib(12)));
  CHECK_EQ(reserved(allocator), 3 * kLargePage);
  for (void* block : {a, again, c}) allocator.free(block);
  check_all_returned(allocator, runtime);
}

// Out of memory, the allocator unmaps what other streams' segments cache and retries;
// when that is not enough it raises, and everything is given back afterwards.
void test_out_of_memory_unmaps_and_retries() {
  SimulatedRuntime runtime(device_config());  // 64 MiB
  CachingAllocator allocator(runtime, config_of("expandable_segments:True"));
  StreamHandle stream = runtime.default_stream(0);
  StreamHandle other = runtime.create_stream(0, 0);
  allocator.free(allocator.allocate(0, mib(40), stream));  // 40 MiB cached on `stream`
  void* big = allocator.allocate(0, mib(50), other);       // needs 60 of the 64 MiB
  CHECK_EQ(reserved(allocator), 3 * kLargePage);
  CHECK_EQ(value_of(allocator.stats(0).num_alloc_retries), 1);
  void* rest = allocator.allocate(0, mib(10), other);  // the mapped tail of `other`'s segment
  CHECK_EQ(bytes(rest), bytes(big) + mib(50));
  CHECK_THROWS(allocator.allocate(0, mib(20), stream), OutOfMemoryError, "out of memory");
  allocator.free(big);
  allocator.free(rest);
  void* after = allocator.allocate(0, mib(20), stream);  // the retry unmaps `other`'s pages
  allocator.free(after);
  check_all_returned(allocator, runtime);
  runtime.destroy_stream(other);
}

// A memory fraction bounds what is mapped, as it bounds segments.
void test_memory_fraction_bounds_mapping() {
  SimulatedRuntime runtime(device_config());
  CachingAllocator allocator(runtime, config_of("expandable_segments:True"));
  StreamHandle stream = runtime.default_stream(0);
  allocator.set_memory_fraction(0, 0.5);  // 32 MiB: one 20 MiB page, not two
  void* first = allocator.allocate(0, mib(15), stream);
  CHECK_THROWS(allocator.allocate(0, mib(15), stream), OutOfMemoryError, "");
  allocator.free(first);
  check_all_returned(allocator, runtime);
}

// Without the setting nothing changes: whole segments, none expandable.
void test_off_by_default() {
  SimulatedRuntime runtime(device_config());
  CachingAllocator allocator(runtime);
  StreamHandle stream = runtime.default_stream(0);
  void* a = allocator.allocate(0, mib(12), stream);
  void* b = allocator.allocate(0, mib(12), stream);
  std::vector<SegmentInfo> segments = allocator.snapshot();
  CHECK_EQ(segments.size(), std::size_t{2});
  CHECK_TRUE(!segments[0].is_expandable && !segments[1].is_expandable);
  allocator.free(a);
  allocator.free(b);
  check_all_returned(allocator, runtime);
}

// Settings changed at run time (setAllocatorSettings): segments made from then on follow
// them, those made before stay; a bad setting changes nothing.
void test_settings_changed_at_run_time() {
  SimulatedRuntime runtime(device_config());
  CachingAllocator allocator(runtime);
  StreamHandle stream = runtime.default_stream(0);
  void* whole = allocator.allocate(0, mib(12), stream);
  allocator.update_settings("expandable_segments:True", "test");
  void* grown = allocator.allocate(0, mib(12), stream);
  CHECK_THROWS(allocator.update_settings("expandable_segments:True,foo:1", "test"), RuntimeError, "unknown key");
  std::vector<SegmentInfo> segments = allocator.snapshot();
  CHECK_EQ(segments.size(), std::size_t{2});
  CHECK_TRUE(segment_at(segments, whole) != nullptr && !segment_at(segments, whole)->is_expandable);
  CHECK_TRUE(segment_at(segments, grown) != nullptr && segment_at(segments, grown)->is_expandable);
  allocator.update_settings("expandable_segments:False,per_process_memory_fraction:0.5", "test");
  CHECK_THROWS(allocator.allocate(0, mib(40), stream), OutOfMemoryError, "");  // 32 MiB allowed
  allocator.free(whole);
  allocator.free(grown);
  check_all_returned(allocator, runtime);
}

}  // namespace

int main() {
  cc_check::run("grows_in_place", test_grows_in_place);
  cc_check::run("small_requests_map_small_pages", test_small_requests_map_small_pages);
  cc_check::run("release_unmaps_whole_pages", test_release_unmaps_whole_pages);
  cc_check::run("out_of_memory_unmaps_and_retries", test_out_of_memory_unmaps_and_retries);
  cc_check::run("memory_fraction_bounds_mapping", test_memory_fraction_bounds_mapping);
  cc_check::run("off_by_default", test_off_by_default);
  cc_check::run("settings_changed_at_run_time", test_settings_changed_at_run_time);
  return cc_check::summary();
}
