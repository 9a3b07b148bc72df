// The simulated runtime against the runtime interface's contract: devices, memory
// accounting, stream ordering, events and timing, error surfacing, thread safety.
// Ordering tests hold a stream on a gate instead of sleeping where they can, so that a
// missing wait shows up every time rather than depending on the scheduler.
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
#include "tests/torch_core/stream_gate.h"
#include "torch_core/csrc/runtime/simulated_runtime.h"

namespace {

using torch_core::CopyKind;
using torch_core::EventHandle;
using torch_core::RuntimeError;
using torch_core::SimulatedConfig;
using torch_core::SimulatedRuntime;
using torch_core::StreamHandle;
using torch_core::testing::Gate;

constexpr std::size_t kMiB = 1 << 20;

SimulatedConfig small_config(int devices = 2, std::size_t bytes = 8 * kMiB) {
  SimulatedConfig config;
  config.device_count = devices;
  config.memory_bytes_per_device = bytes;
  return config;
}

// Polls `condition` for up to `timeout`.
template <typename Condition>
bool eventually(Condition condition, std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return condition();
}

// True when `condition` stays false for the whole of `period`.
template <typename Condition>
bool stays_false(Condition condition, std::chrono::milliseconds period = std::chrono::milliseconds(100)) {
  return !eventually(condition, period);
}

void set_env(const char* name, const char* value) {
  if (value == nullptr) {
    unsetenv(name);
  } else {
    setenv(name, value, /*overwrite=*/1);
  }
}

std::vector<int> read_ints(SimulatedRuntime& runtime, const void* device_ptr, std::size_t count) {
  std::vector<int> host(count, -1);
  runtime.memcpy(host.data(), device_ptr, count * sizeof(int), CopyKind::kDeviceToHost);
  return host;
}

bool all_equal(const std::vector<int>& values, int expected) {
  return std::all_of(values.begin(), values.end(), [&](int v) { return v == expected; });
}

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

void test_same_stream_is_ordered() {
  SimulatedRuntime runtime(small_config());
  StreamHandle stream = runtime.create_stream(0, 0);
  const std::size_t n = 4096;
  int* buffer = static_cast<int*>(runtime.allocate(0, n * sizeof(int)));
  int* pinned = static_cast<int*>(runtime.allocate_host_pinned(n * sizeof(int)));
  runtime.memset_async(buffer, 0, n * sizeof(int), stream);
  // A slow "kernel", then a copy on the same stream: the copy must see what it wrote.
  runtime.enqueue(stream, [buffer, n] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    for (std::size_t i = 0; i < n; ++i) buffer[i] = 42;
  });
  runtime.memcpy_async(pinned, buffer, n * sizeof(int), CopyKind::kDeviceToHost, stream);
  runtime.synchronize_stream(stream);
  CHECK_TRUE(std::all_of(pinned, pinned + n, [](int v) { return v == 42; }));

  // Into pageable memory, memcpy_async returns when the copy is done (as CUDA's).
  runtime.enqueue(stream, [buffer, n] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    for (std::size_t i = 0; i < n; ++i) buffer[i] = 43;
  });
  std::vector<int> pageable(n, 0);
  runtime.memcpy_async(pageable.data(), buffer, n * sizeof(int), CopyKind::kDeviceToHost, stream);
  CHECK_TRUE(all_equal(pageable, 43));
  runtime.destroy_stream(stream);
  runtime.free_host_pinned(pinned);
  runtime.free(0, buffer);
}

void test_two_streams_need_an_event() {
  SimulatedRuntime runtime(small_config());
  StreamHandle producer = runtime.create_stream(0, 0);
  StreamHandle consumer = runtime.create_stream(0, 0);
  const std::size_t n = 256;
  int* buffer = static_cast<int*>(runtime.allocate(0, n * sizeof(int)));
  int* pinned = static_cast<int*>(runtime.allocate_host_pinned(n * sizeof(int)));
  runtime.memset_async(buffer, 0, n * sizeof(int), producer);
  runtime.synchronize_stream(producer);

  // Without a wait the consumer does not wait for the producer: it copies the old data
  // while the producer is still held.
  {
    Gate gate;
    gate.hold(runtime, producer);
    runtime.enqueue(producer, [buffer, n] { std::fill(buffer, buffer + n, 7); });
    runtime.memcpy_async(pinned, buffer, n * sizeof(int), CopyKind::kDeviceToHost, consumer);
    CHECK_TRUE(eventually([&] { return runtime.query_stream(consumer); }));
    CHECK_TRUE(!runtime.query_stream(producer));
    CHECK_TRUE(std::all_of(pinned, pinned + n, [](int v) { return v == 0; }));
    gate.open();
    runtime.synchronize_stream(producer);
  }
  // With an event wait the consumer is held until the producer passes the event.
  {
    Gate gate;
    EventHandle written = runtime.create_event(0, false);
    gate.hold(runtime, producer);
    runtime.enqueue(producer, [buffer, n] { std::fill(buffer, buffer + n, 9); });
    runtime.record_event(written, producer);
    runtime.stream_wait_event(consumer, written);
    runtime.memcpy_async(pinned, buffer, n * sizeof(int), CopyKind::kDeviceToHost, consumer);
    CHECK_TRUE(stays_false([&] { return runtime.query_stream(consumer); }));
    CHECK_TRUE(!runtime.query_event(written));
    gate.open();
    runtime.synchronize_stream(consumer);
    CHECK_TRUE(runtime.query_event(written));
    CHECK_TRUE(std::all_of(pinned, pinned + n, [](int v) { return v == 9; }));
    runtime.destroy_event(written);
  }
  // An event never recorded is complete: waiting on it holds nothing.
  EventHandle fresh = runtime.create_event(0, false);
  CHECK_TRUE(runtime.query_event(fresh));
  runtime.synchronize_event(fresh);
  runtime.stream_wait_event(consumer, fresh);
  runtime.synchronize_stream(consumer);
  runtime.destroy_event(fresh);
  runtime.destroy_stream(producer);
  runtime.destroy_stream(consumer);
  runtime.free_host_pinned(pinned);
  runtime.free(0, buffer);
}

// Re-recording an event on another stream does not release a wait made on the earlier
// record: the wait refers to the record that was latest when it was made (as in CUDA).
void test_rerecorded_event_keeps_earlier_waiters() {
  SimulatedRuntime runtime(small_config());
  StreamHandle slow = runtime.create_stream(0, 0);
  StreamHandle fast = runtime.create_stream(0, 0);
  StreamHandle waiter = runtime.create_stream(0, 0);
  EventHandle event = runtime.create_event(0, false);
  Gate gate;
  gate.hold(runtime, slow);
  runtime.record_event(event, slow);         // record 1: pending behind the gate
  runtime.stream_wait_event(waiter, event);  // waits for record 1
  runtime.record_event(event, fast);         // record 2: completes at once
  CHECK_TRUE(eventually([&] { return runtime.query_event(event); }));
  CHECK_TRUE(stays_false([&] { return runtime.query_stream(waiter); }));
  gate.open();
  runtime.synchronize_stream(waiter);
  runtime.destroy_event(event);
  runtime.destroy_stream(slow);
  runtime.destroy_stream(fast);
  runtime.destroy_stream(waiter);
}

void test_wait_event_across_devices() {
  SimulatedRuntime runtime(small_config());
  StreamHandle on0 = runtime.create_stream(0, 0);
  StreamHandle on1 = runtime.create_stream(1, -1);
  const std::size_t n = 512;
  int* source = static_cast<int*>(runtime.allocate(0, n * sizeof(int)));
  int* target = static_cast<int*>(runtime.allocate(1, n * sizeof(int)));
  Gate gate;
  gate.hold(runtime, on0);
  runtime.enqueue(on0, [source, n] {
    for (std::size_t i = 0; i < n; ++i) source[i] = static_cast<int>(i);
  });
  EventHandle ready = runtime.create_event(0, true);
  runtime.record_event(ready, on0);
  runtime.stream_wait_event(on1, ready);
  runtime.memcpy_async(target, source, n * sizeof(int), CopyKind::kDeviceToDevice, on1);
  gate.open();
  std::vector<int> back(n, -1);
  runtime.memcpy_async(back.data(), target, n * sizeof(int), CopyKind::kDeviceToHost, on1);
  bool ok = true;
  for (std::size_t i = 0; i < n; ++i) ok = ok && back[i] == static_cast<int>(i);
  CHECK_TRUE(ok);
  // An event belongs to a device: recording it on another device's stream is an error.
  CHECK_THROWS(runtime.record_event(ready, on1), RuntimeError, "must match");
  runtime.destroy_event(ready);
  runtime.destroy_stream(on0);
  runtime.destroy_stream(on1);
  runtime.free(0, source);
  runtime.free(1, target);
}

// CUDA's current-device rules (device_runtime.h). On a GPU breaking them acts on the
// wrong device instead of failing, so the simulator refuses what CUDA would misdirect.
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

void test_event_timing() {
  SimulatedRuntime runtime(small_config());
  StreamHandle stream = runtime.create_stream(0, 0);
  EventHandle start = runtime.create_event(0, true);
  EventHandle end = runtime.create_event(0, true);
  EventHandle untimed = runtime.create_event(0, false);

  CHECK_THROWS(runtime.elapsed_ms(start, end), RuntimeError, "never recorded");
  Gate gate;
  gate.hold(runtime, stream);
  runtime.record_event(start, stream);
  runtime.enqueue(stream, [] { std::this_thread::sleep_for(std::chrono::milliseconds(20)); });
  runtime.record_event(end, stream);
  runtime.record_event(untimed, stream);
  CHECK_TRUE(!runtime.query_event(start));
  CHECK_THROWS(runtime.elapsed_ms(start, end), RuntimeError, "has not completed");
  // The worker stamps each event when it reaches it, so the time the stream spends held
  // here, before `start`, is not part of the interval.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  gate.open();
  runtime.synchronize_event(end);
  CHECK_TRUE(runtime.query_event(start));
  CHECK_TRUE(runtime.query_event(end));
  const float ms = runtime.elapsed_ms(start, end);
  CHECK_TRUE(ms >= 15.0f);
  // ~20 ms; an event stamped when recorded rather than reached would give over 300 ms.
  // The bound leaves a loaded CI machine 230 ms of slack.
  CHECK_TRUE(ms < 250.0f);
  CHECK_TRUE(runtime.elapsed_ms(end, start) < 0.0f);
  runtime.synchronize_event(untimed);
  CHECK_THROWS(runtime.elapsed_ms(start, untimed), RuntimeError, "enable_timing=false");

  // Recording again moves the event: the time is the latest record's, so a start
  // recorded again after `end` (and a pause) now lies after it.
  runtime.enqueue(stream, [] { std::this_thread::sleep_for(std::chrono::milliseconds(5)); });
  runtime.record_event(start, stream);
  runtime.synchronize_stream(stream);
  CHECK_TRUE(runtime.elapsed_ms(start, end) <= -4.0f);

  for (EventHandle event : {start, end, untimed}) runtime.destroy_event(event);
  CHECK_THROWS(runtime.query_event(start), RuntimeError, "unknown event handle");
  runtime.destroy_stream(stream);
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

void test_worker_errors_surface() {
  SimulatedRuntime runtime(small_config());
  StreamHandle stream = runtime.create_stream(0, 0);
  std::atomic<bool> ran_after{false};
  runtime.enqueue(stream, [] { throw std::runtime_error("kernel exploded"); });
  runtime.enqueue(stream, [&] { ran_after = true; });
  CHECK_THROWS(runtime.synchronize_stream(stream), RuntimeError, "kernel exploded");
  CHECK_TRUE(ran_after.load());           // the items after a failure still run
  runtime.synchronize_stream(stream);     // reported once, then cleared

  runtime.enqueue(stream, [] { throw 42; });
  CHECK_THROWS(runtime.synchronize_device(0), RuntimeError, "unknown exception");
  runtime.synchronize_device(0);

  // Blocking on the stream from its own work cannot finish: it is an error, not a hang.
  runtime.enqueue(stream, [&runtime, stream] { runtime.synchronize_stream(stream); });
  CHECK_THROWS(runtime.synchronize_stream(stream), RuntimeError, "would never finish");
  EventHandle later = runtime.create_event(0, false);
  Gate gate;
  gate.hold(runtime, stream);
  runtime.enqueue(stream, [&runtime, later] { runtime.synchronize_event(later); });
  runtime.record_event(later, stream);
  gate.open();
  CHECK_THROWS(runtime.synchronize_stream(stream), RuntimeError, "would never finish");
  runtime.destroy_event(later);

  // A blocking memcpy reports earlier failures of the default stream, as cudaMemcpy does.
  runtime.enqueue(runtime.default_stream(0), [] { throw std::runtime_error("default stream failure"); });
  int value = 5;
  void* buffer = runtime.allocate(0, sizeof(int));
  CHECK_THROWS(runtime.memcpy(buffer, &value, sizeof(int), CopyKind::kHostToDevice), RuntimeError,
               "default stream failure");

  // A failure on a stream destroyed before it was synchronized is not lost.
  StreamHandle doomed = runtime.create_stream(1, 0);
  runtime.set_current_device(1);
  runtime.enqueue(doomed, [] { throw std::runtime_error("lost and found"); });
  runtime.set_current_device(0);
  runtime.destroy_stream(doomed);
  CHECK_THROWS(runtime.synchronize_device(1), RuntimeError, "lost and found");
  runtime.synchronize_device(1);
  runtime.free(0, buffer);
  runtime.destroy_stream(stream);
}

void test_stream_lifecycle_and_priorities() {
  SimulatedRuntime runtime(small_config());
  const auto range = runtime.stream_priority_range();
  CHECK_EQ(range.least, 0);
  CHECK_EQ(range.greatest, -2);
  StreamHandle high = runtime.create_stream(0, -10);
  StreamHandle low = runtime.create_stream(0, 5);
  StreamHandle middle = runtime.create_stream(1, -1);
  CHECK_EQ(runtime.stream_priority(high), -2);  // clamped, as CUDA does
  CHECK_EQ(runtime.stream_priority(low), 0);
  CHECK_EQ(runtime.stream_priority(middle), -1);
  CHECK_EQ(runtime.stream_device(middle), 1);
  CHECK_TRUE(runtime.default_stream(0) != runtime.default_stream(1));
  CHECK_TRUE(runtime.default_stream(0) == runtime.default_stream(0));

  // destroy_stream runs what is queued before it returns.
  std::atomic<bool> done{false};
  runtime.enqueue(low, [&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    done = true;
  });
  runtime.destroy_stream(low);
  CHECK_TRUE(done.load());
  CHECK_THROWS(runtime.enqueue(low, [] {}), RuntimeError, "unknown stream handle");
  CHECK_THROWS(runtime.destroy_stream(low), RuntimeError, "unknown stream handle");
  CHECK_THROWS(runtime.destroy_stream(runtime.default_stream(0)), RuntimeError, "lives as long as the runtime");
  CHECK_THROWS(runtime.enqueue(high, nullptr), RuntimeError, "empty");

  // synchronize_device waits for every stream of the device, the default one included.
  std::atomic<int> finished{0};
  for (StreamHandle stream : {high, runtime.default_stream(0)}) {
    runtime.enqueue(stream, [&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      ++finished;
    });
  }
  runtime.synchronize_device(0);
  CHECK_EQ(finished.load(), 2);

  // free() waits for queued work first (cudaFree synchronizes), so nothing writes freed memory.
  int* buffer = static_cast<int*>(runtime.allocate(0, sizeof(int)));
  std::atomic<bool> wrote{false};
  runtime.enqueue(high, [&, buffer] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    *buffer = 1;
    wrote = true;
  });
  runtime.free(0, buffer);
  CHECK_TRUE(wrote.load());
  runtime.destroy_stream(high);
  runtime.destroy_stream(middle);
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

void test_concurrent_streams_and_events() {
  SimulatedRuntime runtime(small_config());
  constexpr int kThreads = 8;
  std::vector<int> counters(kThreads, 0);
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const int device = t % 2;
      runtime.set_current_device(device);
      StreamHandle stream = runtime.create_stream(device, -(t % 3));
      EventHandle event = runtime.create_event(device, true);
      int& counter = counters[static_cast<std::size_t>(t)];
      for (int i = 0; i < 200; ++i) {
        // Unsynchronized increments are safe only because one stream runs them in order.
        runtime.enqueue(stream, [&counter] { ++counter; });
        if (i % 50 == 49) {
          runtime.record_event(event, stream);
          runtime.stream_wait_event(nullptr, event);  // the current device's default stream
          runtime.synchronize_event(event);
          if (counter != i + 1) ++wrong;
        }
      }
      runtime.synchronize_stream(stream);
      runtime.destroy_event(event);
      runtime.destroy_stream(stream);
    });
  }
  for (std::thread& thread : threads) thread.join();
  CHECK_EQ(wrong.load(), 0);
  CHECK_TRUE(std::all_of(counters.begin(), counters.end(), [](int c) { return c == 200; }));
  runtime.synchronize_device(0);
  runtime.synchronize_device(1);
}

}  // namespace

int main() {
  cc_check::run("config_from_env", test_config_from_env);
  cc_check::run("no_devices", test_no_devices);
  cc_check::run("properties_and_invalid_index", test_properties_and_invalid_index);
  cc_check::run("current_device_is_per_thread", test_current_device_is_per_thread);
  cc_check::run("allocation_and_accounting", test_allocation_and_accounting);
  cc_check::run("memcpy_round_trip", test_memcpy_round_trip);
  cc_check::run("same_stream_is_ordered", test_same_stream_is_ordered);
  cc_check::run("two_streams_need_an_event", test_two_streams_need_an_event);
  cc_check::run("rerecorded_event_keeps_earlier_waiters", test_rerecorded_event_keeps_earlier_waiters);
  cc_check::run("wait_event_across_devices", test_wait_event_across_devices);
  cc_check::run("current_device_rules", test_current_device_rules);
  cc_check::run("event_timing", test_event_timing);
  cc_check::run("pinned_memory", test_pinned_memory);
  cc_check::run("worker_errors_surface", test_worker_errors_surface);
  cc_check::run("stream_lifecycle_and_priorities", test_stream_lifecycle_and_priorities);
  cc_check::run("concurrent_allocation_accounting", test_concurrent_allocation_accounting);
  cc_check::run("concurrent_streams_and_events", test_concurrent_streams_and_events);
  return cc_check::summary();
}
