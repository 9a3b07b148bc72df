// The simulated runtime's streams and events against the runtime interface's contract:
// ordering, events across streams and devices, timing, errors from workers, stream
// lifecycles and priorities, concurrency. Ordering tests hold a stream on a gate instead
// of sleeping where they can, so that a missing wait shows up every time rather than
// depending on the scheduler.
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

// A host function runs only after the stream's earlier work, and later work waits for it.
void test_host_func_is_stream_ordered() {
  SimulatedRuntime runtime(small_config());
  StreamHandle stream = runtime.create_stream(0, 0);
  int* pinned = static_cast<int*>(runtime.allocate_host_pinned(sizeof(int)));
  *pinned = 0;
  Gate gate;
  gate.hold(runtime, stream);
  runtime.launch_host_func(stream, [](void* data) { ++*static_cast<int*>(data); }, pinned);
  runtime.enqueue(stream, [pinned] { *pinned *= 10; });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK_TRUE(*pinned == 0);  // held behind the gate
  gate.open();
  runtime.synchronize_stream(stream);
  CHECK_TRUE(*pinned == 10);  // (0 + 1) * 10: in queue order
  CHECK_THROWS(runtime.launch_host_func(stream, nullptr, pinned), RuntimeError, "function is null");
  runtime.destroy_stream(stream);
  runtime.free_host_pinned(pinned);
}

int main() {
  cc_check::run("same_stream_is_ordered", test_same_stream_is_ordered);
  cc_check::run("two_streams_need_an_event", test_two_streams_need_an_event);
  cc_check::run("rerecorded_event_keeps_earlier_waiters", test_rerecorded_event_keeps_earlier_waiters);
  cc_check::run("wait_event_across_devices", test_wait_event_across_devices);
  cc_check::run("event_timing", test_event_timing);
  cc_check::run("worker_errors_surface", test_worker_errors_surface);
  cc_check::run("stream_lifecycle_and_priorities", test_stream_lifecycle_and_priorities);
  cc_check::run("concurrent_streams_and_events", test_concurrent_streams_and_events);
  cc_check::run("host_func_is_stream_ordered", test_host_func_is_stream_ordered);
  return cc_check::summary();
}
