// The simulated runtime's stream capture and graphs: work on a capturing stream is
// recorded, not run, and replays in order on every launch; forks must be joined; the
// calls cudart refuses during capture are refused here too and invalidate the capture.
#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "tests/cc_check/check.h"
#include "tests/torch_core/runtime_test_support.h"
#include "torch_core/csrc/runtime/simulated_runtime.h"

namespace {

using namespace runtime_test;  // NOLINT: the tests' shared vocabulary
using torch_core::CaptureMode;
using torch_core::GraphExecHandle;
using torch_core::GraphHandle;

void add_one(SimulatedRuntime& runtime, StreamHandle stream, int* buffer, std::size_t n) {
  runtime.enqueue(stream, [buffer, n] {
    for (std::size_t i = 0; i < n; ++i) buffer[i] += 1;
  });
}

void test_captured_work_runs_on_each_launch_only() {
  SimulatedRuntime runtime(small_config());
  StreamHandle stream = runtime.create_stream(0, 0);
  const std::size_t n = 64;
  int* buffer = static_cast<int*>(runtime.allocate(0, n * sizeof(int)));
  runtime.memset_async(buffer, 0, n * sizeof(int), stream);
  runtime.synchronize_stream(stream);

  CHECK_EQ(runtime.capture_id(stream), 0u);
  runtime.begin_capture(stream, CaptureMode::kGlobal);
  CHECK_TRUE(runtime.capture_id(stream) != 0);
  CHECK_EQ(runtime.capture_id(runtime.default_stream(0)), 0u);
  add_one(runtime, stream, buffer, n);
  add_one(runtime, stream, buffer, n);
  GraphHandle graph = runtime.end_capture(stream);
  CHECK_EQ(runtime.capture_id(stream), 0u);
  CHECK_TRUE(all_equal(read_ints(runtime, buffer, n), 0));  // captured, not run

  GraphExecHandle exec = runtime.instantiate_graph(graph);
  runtime.destroy_graph(graph);  // the instantiated graph keeps the work
  for (int launch = 0; launch < 3; ++launch) runtime.launch_graph(exec, stream);
  runtime.destroy_graph_exec(exec);  // as in CUDA, pending launches still run
  runtime.synchronize_stream(stream);
  CHECK_TRUE(all_equal(read_ints(runtime, buffer, n), 6));
  CHECK_THROWS(runtime.launch_graph(exec, stream), RuntimeError, "unknown instantiated graph");
  runtime.destroy_stream(stream);
  runtime.free(0, buffer);
}

void test_pageable_copies_are_graph_nodes() {
  SimulatedRuntime runtime(small_config());
  StreamHandle stream = runtime.create_stream(0, 0);
  const std::size_t n = 16;
  int* buffer = static_cast<int*>(runtime.allocate(0, n * sizeof(int)));
  std::vector<int> source(n, 7);
  std::vector<int> back(n, 0);
  runtime.begin_capture(stream, CaptureMode::kGlobal);
  runtime.memcpy_async(buffer, source.data(), n * sizeof(int), CopyKind::kHostToDevice, stream);
  add_one(runtime, stream, buffer, n);
  runtime.memcpy_async(back.data(), buffer, n * sizeof(int), CopyKind::kDeviceToHost, stream);
  GraphHandle graph = runtime.end_capture(stream);
  CHECK_TRUE(all_equal(back, 0));  // nothing ran, nothing was waited for
  std::fill(source.begin(), source.end(), 9);  // read when the graph runs
  GraphExecHandle exec = runtime.instantiate_graph(graph);
  runtime.launch_graph(exec, stream);
  runtime.synchronize_stream(stream);
  CHECK_TRUE(all_equal(back, 10));
  runtime.destroy_graph_exec(exec);
  runtime.destroy_graph(graph);
  runtime.destroy_stream(stream);
  runtime.free(0, buffer);
}

void test_capture_refuses_what_cuda_refuses() {
  SimulatedRuntime runtime(small_config());
  StreamHandle stream = runtime.create_stream(0, 0);
  int* buffer = static_cast<int*>(runtime.allocate(0, 64));
  CHECK_THROWS(runtime.begin_capture(runtime.default_stream(0), CaptureMode::kGlobal), RuntimeError,
               "default stream");
  CHECK_THROWS(runtime.end_capture(stream), RuntimeError, "not capturing");

  // Synchronising with the capturing stream invalidates the capture, and its end fails.
  runtime.begin_capture(stream, CaptureMode::kGlobal);
  CHECK_THROWS(runtime.begin_capture(stream, CaptureMode::kGlobal), RuntimeError, "already capturing");
  CHECK_THROWS(runtime.synchronize_stream(stream), RuntimeError, "not permitted when stream is capturing");
  CHECK_THROWS(add_one(runtime, stream, buffer, 16), RuntimeError, "previous error during capture");
  CHECK_THROWS(runtime.end_capture(stream), RuntimeError, "synchronize_stream on a capturing stream");
  CHECK_EQ(runtime.capture_id(stream), 0u);  // ended all the same

  // Implicitly synchronising calls (free): refused in global mode from any thread ...
  std::vector<int> host(16, 0);
  runtime.begin_capture(stream, CaptureMode::kGlobal);
  void* spare = runtime.allocate(0, 64);  // allocating is allowed during capture
  std::string refused;
  std::thread other([&] {
    try {
      runtime.free(0, spare);
    } catch (const RuntimeError& error) {
      refused = error.what();
    }
  });
  other.join();
  CHECK_TRUE(refused.find("free: operation not permitted when stream is capturing") != std::string::npos);
  CHECK_THROWS(runtime.end_capture(stream), RuntimeError, "free during capture");
  // ... from the capturing thread only in thread-local mode, and not at all when relaxed.
  runtime.begin_capture(stream, CaptureMode::kThreadLocal);
  std::thread([&] { runtime.free(0, spare); }).join();
  CHECK_THROWS(runtime.synchronize_device(0), RuntimeError, "not permitted when stream is capturing");
  CHECK_THROWS(runtime.end_capture(stream), RuntimeError, "synchronize_device during capture");
  runtime.begin_capture(stream, CaptureMode::kRelaxed);
  runtime.free(0, runtime.allocate(0, 64));
  // A blocking memcpy orders after the legacy default stream, not the captured one: CUDA
  // allows it in every mode.
  runtime.memcpy(host.data(), buffer, 64, CopyKind::kDeviceToHost);
  runtime.destroy_graph(runtime.end_capture(stream));

  // An event recorded in the capture is a point of the graph: it cannot be queried.
  EventHandle event = runtime.create_event(0, false);
  runtime.begin_capture(stream, CaptureMode::kGlobal);
  runtime.record_event(event, stream);
  CHECK_THROWS(runtime.query_event(event), RuntimeError, "recorded in a capture");
  CHECK_THROWS(runtime.end_capture(stream), RuntimeError, "previous error during capture");
  CHECK_TRUE(runtime.query_event(event));  // after the capture it was never recorded
  runtime.destroy_event(event);
  runtime.destroy_stream(stream);
  runtime.free(0, buffer);
}

void test_forks_join_into_one_graph() {
  SimulatedRuntime runtime(small_config());
  StreamHandle origin = runtime.create_stream(0, 0);
  StreamHandle side = runtime.create_stream(0, 0);
  EventHandle fork = runtime.create_event(0, false);
  EventHandle join = runtime.create_event(0, false);
  const std::size_t n = 16;
  int* buffer = static_cast<int*>(runtime.allocate(0, n * sizeof(int)));
  runtime.memset_async(buffer, 0, n * sizeof(int), origin);
  runtime.synchronize_stream(origin);

  // origin: x += 1 ; side (after the fork): x *= 10 ; origin (after the join): x += 1.
  runtime.begin_capture(origin, CaptureMode::kGlobal);
  add_one(runtime, origin, buffer, n);
  runtime.record_event(fork, origin);
  runtime.stream_wait_event(side, fork);
  CHECK_EQ(runtime.capture_id(side), runtime.capture_id(origin));
  runtime.enqueue(side, [buffer, n] {
    for (std::size_t i = 0; i < n; ++i) buffer[i] *= 10;
  });
  runtime.record_event(join, side);
  runtime.stream_wait_event(origin, join);
  add_one(runtime, origin, buffer, n);
  GraphHandle graph = runtime.end_capture(origin);
  CHECK_EQ(runtime.capture_id(side), 0u);
  GraphExecHandle exec = runtime.instantiate_graph(graph);
  runtime.launch_graph(exec, origin);
  runtime.launch_graph(exec, origin);
  runtime.synchronize_stream(origin);
  CHECK_TRUE(all_equal(read_ints(runtime, buffer, n), 121));  // ((0 + 1) * 10 + 1 + 1) * 10 + 1

  // A fork whose last work was never waited on leaves the capture unjoined.
  runtime.begin_capture(origin, CaptureMode::kGlobal);
  runtime.record_event(fork, origin);
  runtime.stream_wait_event(side, fork);
  add_one(runtime, side, buffer, n);
  CHECK_THROWS(runtime.end_capture(origin), RuntimeError, "not joined");
  CHECK_EQ(runtime.capture_id(side), 0u);

  // A graph runs only on its own device's streams.
  runtime.set_current_device(1);
  StreamHandle elsewhere = runtime.create_stream(1, 0);
  CHECK_THROWS(runtime.launch_graph(exec, elsewhere), RuntimeError, "captured on simulated device 0");
  runtime.destroy_stream(elsewhere);
  runtime.set_current_device(0);
  runtime.destroy_graph_exec(exec);
  runtime.destroy_graph(graph);
  for (EventHandle event : {fork, join}) runtime.destroy_event(event);
  for (StreamHandle stream : {origin, side}) runtime.destroy_stream(stream);
  runtime.free(0, buffer);
}

}  // namespace

int main() {
  cc_check::run("captured_work_runs_on_each_launch_only", test_captured_work_runs_on_each_launch_only);
  cc_check::run("pageable_copies_are_graph_nodes", test_pageable_copies_are_graph_nodes);
  cc_check::run("capture_refuses_what_cuda_refuses", test_capture_refuses_what_cuda_refuses);
  cc_check::run("forks_join_into_one_graph", test_forks_join_into_one_graph);
  return cc_check::summary();
}
