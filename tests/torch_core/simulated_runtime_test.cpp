// The simulated runtime against the runtime interface's contract: configuration, devices,
// the current device, memory accounting and copies, pinned memory, concurrent allocation.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tests/cc_check/check.h"
#include "tests/torch_core/runtime_test_support.h"
#include "tests/torch_core/stream_gate.h"
#include "torch_core/csrc/runtime/simulated_runtime.h"

namespace {

using namespace runtime_test;  // NOLINT: the tests' shared vocabulary

void test_config_from_env() {
  set_env("TORCH_SIM_DEVICE_COUNT", nullptr);
  set_env("TORCH_SIM_MEMORY_MB", nullptr);
  SimulatedConfig defaults = SimulatedConfig::from_env();
  CHECK_EQ(defaults.device_count, 2);
  CHECK_EQ(defaults.memory_bytes_per_device, std::size_t{1} << 30);

  set_env("TORCH_SIM_DEVICE_COUNT", "3");
  set_env("TORCH_SIM_MEMORY_MB", "64");
  SimulatedConfig config = SimulatedConfig::from_env();
  CHECK_EQ(config.device_count, 3);
  CHECK_EQ(config.memory_bytes_per_device, 64 * kMiB);
  SimulatedRuntime runtime(config);
  CHECK_EQ(runtime.device_count(), 3);
  CHECK_EQ(runtime.memory_info(2).total_bytes, 64 * kMiB);
  CHECK_EQ(runtime.properties(2).total_memory_bytes, 64 * kMiB);

  set_env("TORCH_SIM_DEVICE_COUNT", "");  // empty means unset
  CHECK_EQ(SimulatedConfig::from_env().device_count, 2);

  for (const char* bad : {"abc", "-1", "2x", " 2", "+2", "1.5", "65", "99999999999999999999999"}) {
    set_env("TORCH_SIM_DEVICE_COUNT", bad);
    CHECK_THROWS(SimulatedConfig::from_env(), RuntimeError, "TORCH_SIM_DEVICE_COUNT='" + std::string(bad) + "'");
    CHECK_THROWS(SimulatedConfig::from_env(), RuntimeError, "expected a whole number of devices");
  }
  set_env("TORCH_SIM_DEVICE_COUNT", nullptr);
  for (const char* bad : {"0", "lots", "1e3", "-64"}) {
    set_env("TORCH_SIM_MEMORY_MB", bad);
    CHECK_THROWS(SimulatedConfig::from_env(), RuntimeError, "TORCH_SIM_MEMORY_MB='" + std::string(bad) + "'");
    CHECK_THROWS(SimulatedConfig::from_env(), RuntimeError, "MiB");
  }
  set_env("TORCH_SIM_MEMORY_MB", nullptr);
}

void test_no_devices() {
  SimulatedRuntime runtime(small_config(0));
  CHECK_EQ(runtime.device_count(), 0);
  CHECK_TRUE(!runtime.unavailable_reason().empty());
  CHECK_THROWS(runtime.properties(0), std::out_of_range, "no valid indices");
  CHECK_THROWS(runtime.memcpy(nullptr, nullptr, 4, CopyKind::kHostToDevice), std::out_of_range,
               "no valid indices");
}

void test_properties_and_invalid_index() {
  SimulatedRuntime runtime(small_config(2, 4 * kMiB));
  CHECK_EQ(runtime.device_count(), 2);
  CHECK_TRUE(runtime.unavailable_reason().empty());
  const auto props = runtime.properties(1);
  CHECK_EQ(props.name, std::string("Simulated Device 1"));
  CHECK_EQ(props.total_memory_bytes, 4 * kMiB);
  CHECK_TRUE(props.multiprocessor_count > 0);
  CHECK_THROWS(runtime.properties(2), std::out_of_range, "valid indices are 0..1");
  CHECK_THROWS(runtime.properties(-1), std::out_of_range, "valid indices are 0..1");
  CHECK_THROWS(runtime.allocate(2, 16), std::out_of_range, "allocate: invalid simulated device index 2");
  CHECK_THROWS(runtime.memory_info(-3), std::out_of_range, "valid indices");
  CHECK_THROWS(runtime.create_stream(5, 0), std::out_of_range, "valid indices");
  CHECK_THROWS(runtime.create_event(2, true), std::out_of_range, "valid indices");
  CHECK_THROWS(runtime.default_stream(2), std::out_of_range, "valid indices");
  CHECK_THROWS(runtime.set_current_device(2), std::out_of_range, "valid indices");
  CHECK_THROWS(runtime.synchronize_device(2), std::out_of_range, "valid indices");
}

void test_current_device_is_per_thread() {
  SimulatedRuntime runtime(small_config());
  CHECK_EQ(runtime.current_device(), 0);
  runtime.set_current_device(1);
  CHECK_EQ(runtime.current_device(), 1);
  int seen_elsewhere = -1;
  std::thread([&] { seen_elsewhere = runtime.current_device(); }).join();
  CHECK_EQ(seen_elsewhere, 0);
  SimulatedRuntime other(small_config());
  CHECK_EQ(other.current_device(), 0);  // per runtime, too
  // The null stream is the current device's default stream, as stream 0 in CUDA.
  CHECK_EQ(runtime.stream_device(nullptr), 1);
  CHECK_TRUE(runtime.stream_device(runtime.default_stream(0)) == 0);
}

void test_allocation_and_accounting() {
  SimulatedRuntime runtime(small_config(2, 1 * kMiB));
  CHECK_EQ(runtime.memory_info(0).free_bytes, 1 * kMiB);
  void* half = runtime.allocate(0, 512 * 1024);
  CHECK_TRUE(half != nullptr);
  CHECK_EQ(reinterpret_cast<std::uintptr_t>(half) % 512, std::uintptr_t{0});
  std::memset(half, 0xab, 512 * 1024);  // it is real, writable memory
  CHECK_EQ(runtime.memory_info(0).free_bytes, 512 * std::size_t{1024});
  CHECK_EQ(runtime.memory_info(1).free_bytes, 1 * kMiB);  // per device
  CHECK_TRUE(runtime.allocate(0, 600 * 1024) == nullptr);  // past the capacity
  CHECK_EQ(runtime.memory_info(0).free_bytes, 512 * std::size_t{1024});  // a failure charges nothing
  void* odd = runtime.allocate(0, 1000);
  CHECK_TRUE(odd != nullptr);
  CHECK_EQ(runtime.memory_info(0).free_bytes, 512 * std::size_t{1024} - 1024);  // rounded to 512
  CHECK_TRUE(runtime.allocate(0, 0) == nullptr);
  runtime.free(0, nullptr);  // a no-op, as cudaFree(nullptr)

  void* other_device = runtime.allocate(1, 4096);
  CHECK_THROWS(runtime.free(0, other_device), RuntimeError, "allocated on simulated device 1, not device 0");
  int on_stack = 0;
  CHECK_THROWS(runtime.free(0, &on_stack), RuntimeError, "not the start of memory allocated");
  CHECK_THROWS(runtime.free(0, static_cast<char*>(half) + 512), RuntimeError, "interior pointer");
  runtime.free(0, half);
  CHECK_THROWS(runtime.free(0, half), RuntimeError, "already freed");
  runtime.free(0, odd);
  runtime.free(1, other_device);
  CHECK_EQ(runtime.memory_info(0).free_bytes, 1 * kMiB);
  CHECK_EQ(runtime.memory_info(1).free_bytes, 1 * kMiB);
  void* whole = runtime.allocate(0, 1 * kMiB);  // exactly the capacity fits
  CHECK_TRUE(whole != nullptr);
  CHECK_EQ(runtime.memory_info(0).free_bytes, std::size_t{0});
  runtime.free(0, whole);
}

void test_memcpy_round_trip() {
  SimulatedRuntime runtime(small_config());
  const std::size_t n = 1000;
  std::vector<int> source(n);
  for (std::size_t i = 0; i < n; ++i) source[i] = static_cast<int>(i * 7 + 3);
  void* a = runtime.allocate(0, n * sizeof(int));
  void* b = runtime.allocate(0, n * sizeof(int));
  runtime.memcpy(a, source.data(), n * sizeof(int), CopyKind::kHostToDevice);
  runtime.memcpy(b, a, n * sizeof(int), CopyKind::kDeviceToDevice);
  std::vector<int> back(n, 0);
  runtime.memcpy(back.data(), b, n * sizeof(int), CopyKind::kDeviceToHost);
  CHECK_TRUE(back == source);

  // Interior pointers (as a caching allocator hands out) are device memory too.
  runtime.memcpy(back.data(), static_cast<int*>(b) + 10, 5 * sizeof(int), CopyKind::kDeviceToHost);
  CHECK_EQ(back[0], source[10]);
  CHECK_EQ(back[4], source[14]);

  runtime.memset_async(a, 0, n * sizeof(int), runtime.default_stream(0));
  CHECK_TRUE(all_equal(read_ints(runtime, a, n), 0));  // memcpy orders after default-stream work

  // Ranges and kinds are checked.
  CHECK_THROWS(runtime.memcpy(back.data(), a, (n + 1) * sizeof(int), CopyKind::kDeviceToHost), RuntimeError,
               "not inside device memory");
  CHECK_THROWS(runtime.memcpy(a, b, 4, CopyKind::kHostToDevice), RuntimeError, "is device memory");
  CHECK_THROWS(runtime.memcpy_async(back.data(), source.data(), 4, CopyKind::kDeviceToDevice,
                                    runtime.default_stream(0)),
               RuntimeError, "not inside device memory");
  CHECK_THROWS(runtime.memset_async(source.data(), 0, 4, runtime.default_stream(0)), RuntimeError,
               "not inside device memory");
  runtime.free(0, a);
  runtime.free(0, b);
}

void test_current_device_rules() {
  SimulatedRuntime runtime(small_config());
  runtime.set_current_device(0);
  StreamHandle default0 = runtime.default_stream(0);
  StreamHandle default1 = runtime.default_stream(1);
  StreamHandle created1 = runtime.create_stream(1, 0);
  EventHandle event0 = runtime.create_event(0, true);
  EventHandle event1 = runtime.create_event(1, true);
  const char* wrong_default = "the default stream of simulated device 1 while device 0 is current";
  CHECK_THROWS(runtime.synchronize_stream(default1), RuntimeError, wrong_default);
  CHECK_THROWS(runtime.query_stream(default1), RuntimeError, wrong_default);
  CHECK_THROWS(runtime.record_event(event1, default1), RuntimeError, wrong_default);
  CHECK_THROWS(runtime.stream_wait_event(default1, event0), RuntimeError, wrong_default);
  CHECK_THROWS(runtime.memset_async(nullptr, 0, 0, default1), RuntimeError, wrong_default);
  CHECK_THROWS(runtime.enqueue(created1, [] {}), RuntimeError, "CUDA refuses a kernel launch");
  // What CUDA allows on another device's created stream: queue copies and events, wait.
  runtime.record_event(event1, created1);
  runtime.stream_wait_event(default0, event1);
  runtime.synchronize_stream(created1);
  CHECK_TRUE(runtime.query_stream(created1));
  // Everything, once the stream's device is current.
  runtime.set_current_device(1);
  runtime.enqueue(created1, [] {});
  runtime.record_event(event1, default1);
  runtime.synchronize_stream(default1);
  CHECK_THROWS(runtime.record_event(event0, default0), RuntimeError,
               "the default stream of simulated device 0 while device 1 is current");
  runtime.set_current_device(0);
  runtime.record_event(event0, default0);
  runtime.synchronize_device(0);
  CHECK_THROWS(runtime.elapsed_ms(event0, event1), RuntimeError, "must match");
  for (EventHandle event : {event0, event1}) runtime.destroy_event(event);
  runtime.destroy_stream(created1);
}

void test_pinned_memory() {
  SimulatedRuntime runtime(small_config());
  StreamHandle stream = runtime.create_stream(0, 0);
  const std::size_t n = 64;
  int* pinned = static_cast<int*>(runtime.allocate_host_pinned(n * sizeof(int)));
  CHECK_TRUE(pinned != nullptr);
  CHECK_EQ(reinterpret_cast<std::uintptr_t>(pinned) % 512, std::uintptr_t{0});
  std::fill(pinned, pinned + n, 1);
  std::vector<int> pageable(n, 1);
  int* from_pinned = static_cast<int*>(runtime.allocate(0, n * sizeof(int)));
  int* from_pageable = static_cast<int*>(runtime.allocate(0, n * sizeof(int)));
  Gate gate;
  gate.hold(runtime, stream);
  runtime.memcpy_async(from_pinned, pinned, n * sizeof(int), CopyKind::kHostToDevice, stream);
  runtime.memcpy_async(from_pageable, pageable.data(), n * sizeof(int), CopyKind::kHostToDevice, stream);
  // Changing the sources before the copies run: a pinned source is read when the copy
  // runs; a pageable one was staged by the call, as cudaMemcpyAsync does.
  std::fill(pinned, pinned + n, 2);
  std::fill(pageable.begin(), pageable.end(), 2);
  gate.open();
  runtime.synchronize_stream(stream);
  CHECK_TRUE(all_equal(read_ints(runtime, from_pinned, n), 2));
  CHECK_TRUE(all_equal(read_ints(runtime, from_pageable, n), 1));

  int on_stack = 0;
  CHECK_THROWS(runtime.free_host_pinned(&on_stack), RuntimeError, "not the start of pinned memory");
  runtime.free_host_pinned(pinned);
  CHECK_THROWS(runtime.free_host_pinned(pinned), RuntimeError, "already freed");
  runtime.free_host_pinned(nullptr);
  runtime.destroy_stream(stream);
  runtime.free(0, from_pinned);
  runtime.free(0, from_pageable);
}

void test_concurrent_allocation_accounting() {
  const std::size_t capacity = 4 * kMiB;
  SimulatedRuntime runtime(small_config(1, capacity));
  constexpr int kThreads = 8;
  std::atomic<std::size_t> held_bytes{0};
  std::atomic<bool> over_capacity{false};
  std::atomic<int> failures{0};
  std::vector<std::vector<std::pair<void*, std::size_t>>> kept(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 random(static_cast<unsigned>(t) * 7919u + 1u);
      std::vector<std::pair<void*, std::size_t>>& mine = kept[static_cast<std::size_t>(t)];
      for (int i = 0; i < 2000; ++i) {
        if (!mine.empty() && random() % 2 == 0) {
          const std::size_t index = random() % mine.size();
          held_bytes -= mine[index].second;
          runtime.free(0, mine[index].first);
          mine[index] = mine.back();
          mine.pop_back();
          continue;
        }
        const std::size_t bytes = 512 * (1 + random() % 128);  // 512 B .. 64 KiB
        void* ptr = runtime.allocate(0, bytes);
        if (ptr == nullptr) {
          ++failures;
          continue;
        }
        static_cast<unsigned char*>(ptr)[bytes - 1] = 1;
        if (held_bytes += bytes; held_bytes.load() > capacity) over_capacity = true;
        mine.emplace_back(ptr, bytes);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  CHECK_TRUE(!over_capacity.load());
  std::size_t still_held = 0;
  for (const auto& mine : kept) {
    for (const auto& block : mine) still_held += block.second;
  }
  CHECK_EQ(still_held, held_bytes.load());
  CHECK_EQ(runtime.memory_info(0).free_bytes, capacity - still_held);
  for (const auto& mine : kept) {
    for (const auto& block : mine) runtime.free(0, block.first);
  }
  CHECK_EQ(runtime.memory_info(0).free_bytes, capacity);
  std::fprintf(stderr, "  (%d allocations hit the capacity)\n", failures.load());
}

}  // namespace

int main() {
  cc_check::run("config_from_env", test_config_from_env);
  cc_check::run("no_devices", test_no_devices);
  cc_check::run("properties_and_invalid_index", test_properties_and_invalid_index);
  cc_check::run("current_device_is_per_thread", test_current_device_is_per_thread);
  cc_check::run("allocation_and_accounting", test_allocation_and_accounting);
  cc_check::run("memcpy_round_trip", test_memcpy_round_trip);
  cc_check::run("current_device_rules", test_current_device_rules);
  cc_check::run("pinned_memory", test_pinned_memory);
  cc_check::run("concurrent_allocation_accounting", test_concurrent_allocation_accounting);
  return cc_check::summary();
}
