// The caching pinned-host allocator over the simulated runtime: size classes and reuse,
// stream safety of blocks freed while a copy still uses them, statistics, empty_cache,
// errors and concurrency.
#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "tests/cc_check/check.h"
#include "tests/torch_core/stream_gate.h"
#include "torch_core/csrc/runtime/allocator_errors.h"
#include "torch_core/csrc/runtime/host_pinned_allocator.h"
#include "torch_core/csrc/runtime/simulated_runtime.h"

namespace {

using torch_core::CopyKind;
using torch_core::HostAllocatorStats;
using torch_core::HostPinnedAllocator;
using torch_core::OutOfMemoryError;
using torch_core::RuntimeError;
using torch_core::SimulatedConfig;
using torch_core::SimulatedRuntime;
using torch_core::StreamHandle;
using torch_core::testing::Gate;

SimulatedConfig one_device() {
  SimulatedConfig config;
  config.device_count = 1;
  config.memory_bytes_per_device = 64 << 20;
  return config;
}

void test_size_classes_and_reuse() {
  SimulatedRuntime runtime(one_device());
  HostPinnedAllocator allocator(runtime);
  void* first = allocator.allocate(1000);  // a 1 KiB block
  allocator.free(first);
  CHECK_TRUE(allocator.allocate(600) == first);  // same size class: reused
  void* bigger = allocator.allocate(1500);       // 2 KiB class: a new block
  CHECK_TRUE(bigger != first);
  CHECK_TRUE(allocator.allocate(0) == nullptr);
  allocator.free(nullptr);

  HostAllocatorStats stats = allocator.stats();
  CHECK_EQ(stats.allocation.current, 2);
  CHECK_EQ(stats.allocated_bytes.current, 1024 + 2048);
  CHECK_EQ(stats.reserved_bytes.current, 1024 + 2048);
  CHECK_EQ(stats.segment.current, 2);
  CHECK_EQ(stats.num_host_alloc, 2);

  allocator.free(first);
  allocator.free(bigger);
  stats = allocator.stats();
  CHECK_EQ(stats.allocation.current, 0);
  CHECK_EQ(stats.allocation.peak, 2);
  CHECK_EQ(stats.allocation.allocated, 3);
  CHECK_EQ(stats.reserved_bytes.current, 3072);

  allocator.reset_peak_stats();
  CHECK_EQ(allocator.stats().allocation.peak, 0);
  allocator.empty_cache();
  stats = allocator.stats();
  CHECK_EQ(stats.reserved_bytes.current, 0);
  CHECK_EQ(stats.segment.current, 0);
  CHECK_EQ(stats.num_host_free, 2);
  allocator.reset_accumulated_stats();
  CHECK_EQ(allocator.stats().num_host_alloc, 0);
  CHECK_EQ(allocator.stats().allocation.allocated, 0);
}

// A staging buffer freed while its async copy is still queued is not handed out again
// until the copy's stream has passed the point of the free.
void test_record_stream() {
  SimulatedRuntime runtime(one_device());
  HostPinnedAllocator allocator(runtime);
  StreamHandle stream = runtime.create_stream(0, 0);
  void* device = runtime.allocate(0, 4096);

  Gate gate;
  gate.hold(runtime, stream);
  char* staging = static_cast<char*>(allocator.allocate(4096));
  std::memset(staging, 7, 4096);
  runtime.memcpy_async(device, staging, 4096, CopyKind::kHostToDevice, stream);
  allocator.record_stream(staging, 0, stream);
  allocator.free(staging);

  void* meanwhile = allocator.allocate(4096);
  CHECK_TRUE(meanwhile != staging);
  HostAllocatorStats stats = allocator.stats();
  CHECK_EQ(stats.segment.current, 2);

  gate.open();
  runtime.synchronize_stream(stream);
  char copied[4096];
  runtime.memcpy(copied, device, 4096, CopyKind::kDeviceToHost);
  CHECK_EQ(static_cast<int>(copied[0]), 7);
  CHECK_EQ(static_cast<int>(copied[4095]), 7);
  CHECK_TRUE(allocator.allocate(4096) == staging);  // the event completed: reusable

  allocator.free(staging);
  allocator.free(meanwhile);
  CHECK_THROWS(allocator.record_stream(staging, 0, stream), RuntimeError,
               "not a live allocation");
  runtime.free(0, device);
  runtime.destroy_stream(stream);
}

void test_empty_cache_waits_for_events() {
  SimulatedRuntime runtime(one_device());
  HostPinnedAllocator allocator(runtime);
  StreamHandle stream = runtime.create_stream(0, 0);
  Gate gate;
  gate.hold(runtime, stream);
  std::atomic<bool> done{false};
  runtime.enqueue(stream, [&done] { done = true; });
  void* ptr = allocator.allocate(100);
  allocator.record_stream(ptr, 0, stream);
  allocator.free(ptr);
  std::thread opener([&gate] { gate.open(); });
  allocator.empty_cache();
  CHECK_TRUE(done.load());
  CHECK_EQ(allocator.stats().reserved_bytes.current, 0);
  opener.join();
  runtime.destroy_stream(stream);
}

void test_errors() {
  SimulatedRuntime runtime(one_device());
  HostPinnedAllocator allocator(runtime);
  int local = 0;
  CHECK_THROWS(allocator.free(&local), RuntimeError, "not allocated by this allocator");
  void* ptr = allocator.allocate(64);
  allocator.free(ptr);
  CHECK_THROWS(allocator.free(ptr), RuntimeError, "freed already");
  CHECK_THROWS(allocator.allocate(static_cast<std::size_t>(-1)), OutOfMemoryError,
               "pinned host memory");
}

void test_threads() {
  constexpr int kThreads = 8;
  constexpr int kIterations = 500;
  SimulatedRuntime runtime(one_device());
  HostPinnedAllocator allocator(runtime);
  std::atomic<int> overlaps{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      uint32_t state = 99u + static_cast<uint32_t>(t);
      std::vector<char*> live;
      for (int i = 0; i < kIterations; ++i) {
        state = state * 1664525u + 1013904223u;
        char* ptr = static_cast<char*>(allocator.allocate(1 + (state >> 12) % 8192));
        ptr[0] = static_cast<char>(t);
        live.push_back(ptr);
        if (live.size() > 3) {
          if (live.front()[0] != static_cast<char>(t)) ++overlaps;
          allocator.free(live.front());
          live.erase(live.begin());
        }
      }
      for (char* ptr : live) allocator.free(ptr);
    });
  }
  for (std::thread& thread : threads) thread.join();
  CHECK_EQ(overlaps.load(), 0);
  const HostAllocatorStats stats = allocator.stats();
  CHECK_EQ(stats.allocation.current, 0);
  CHECK_EQ(stats.allocation.allocated, kThreads * kIterations);
  CHECK_EQ(stats.allocated_bytes.current, 0);
  CHECK_EQ(stats.segment.current, stats.num_host_alloc);
  allocator.empty_cache();
  CHECK_EQ(allocator.stats().reserved_bytes.current, 0);
}

}  // namespace

int main() {
  cc_check::run("size_classes_and_reuse", test_size_classes_and_reuse);
  cc_check::run("record_stream", test_record_stream);
  cc_check::run("empty_cache_waits_for_events", test_empty_cache_waits_for_events);
  cc_check::run("errors", test_errors);
  cc_check::run("threads", test_threads);
  return cc_check::summary();
}
