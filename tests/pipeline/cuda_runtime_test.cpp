// The cudart runtime and the add kernel, with no torch: runs on any machine with nvcc's
// output and, where there is a GPU, on the GPU. Without one it checks the no-device
// behaviour and says the GPU part was skipped.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/kernels/device_smoke.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/kernels/spin.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_device_runtime.h"

namespace {

using torch_core::CopyKind;
using torch_core::EventHandle;
using torch_core::StreamHandle;

int failures = 0;
int checks = 0;

void check(bool ok, const std::string& what) {
  ++checks;
  if (!ok) {
    ++failures;
    std::fprintf(stderr, "FAILED: %s\n", what.c_str());
  }
}

// True when `call` throws an exception of type E whose message contains `fragment`.
template <typename E, typename Call>
bool throws(Call call, const std::string& fragment = "") {
  try {
    call();
  } catch (const E& error) {
    return std::string(error.what()).find(fragment) != std::string::npos;
  } catch (...) {
    return false;
  }
  return false;
}

void check_no_device(torch_cuda::CudaRuntime& runtime, const std::string& reason) {
  std::printf("skipped: no CUDA device (%s): GPU checks skipped, no-device behaviour checked\n",
              reason.c_str());
  check(runtime.device_count() == 0, "device_count() is 0");
  check(!reason.empty(), "unavailable_reason() says why");
  check(throws<std::out_of_range>([&] { runtime.properties(0); }, "no valid indices"),
        "properties(0) throws out_of_range");
  check(throws<std::out_of_range>([&] { runtime.allocate(0, 16); }, "allocate"),
        "allocate(0, ...) throws out_of_range naming the call");
  check(throws<std::out_of_range>([&] { runtime.create_stream(0, 0); }, "valid indices"),
        "create_stream(0, ...) throws out_of_range");
  check(throws<std::out_of_range>([&] { runtime.set_current_device(0); }, "valid indices"),
        "set_current_device(0) throws out_of_range");
  check(runtime.current_device() == 0, "current_device() is 0 without devices");
  const auto range = runtime.stream_priority_range();
  check(range.least == 0 && range.greatest == 0, "stream_priority_range() is {0, 0} without devices");
}

void check_device(torch_cuda::CudaRuntime& runtime, int device) {
  const std::string on = " on device " + std::to_string(device);
  runtime.set_current_device(device);
  check(runtime.current_device() == device, "set_current_device/current_device" + on);

  const auto props = runtime.properties(device);
  check(props.total_memory_bytes > 0 && props.major >= 7, "device properties are sane" + on);
  const auto memory = runtime.memory_info(device);
  check(memory.total_bytes > 0 && memory.free_bytes <= memory.total_bytes, "memory_info is sane" + on);

  // Round trip: host -> device -> device -> host.
  const std::size_t n = 1 << 20;
  const std::size_t bytes = n * sizeof(float);
  std::vector<float> host(n), back(n, -1.0f);
  for (std::size_t i = 0; i < n; ++i) host[i] = static_cast<float>(i % 4093) * 0.5f;
  void* a = runtime.allocate(device, bytes);
  void* b = runtime.allocate(device, bytes);
  check(a != nullptr && b != nullptr, "allocate returns memory" + on);
  runtime.memcpy(a, host.data(), bytes, CopyKind::kHostToDevice);
  runtime.memcpy(b, a, bytes, CopyKind::kDeviceToDevice);
  runtime.memcpy(back.data(), b, bytes, CopyKind::kDeviceToHost);
  check(back == host, "memcpy H2D/D2D/D2H round trip" + on);

  // memcpy orders after the default stream's work.
  runtime.memset_async(b, 0, bytes, runtime.default_stream(device));
  runtime.memcpy(back.data(), b, bytes, CopyKind::kDeviceToHost);
  check(std::all_of(back.begin(), back.end(), [](float v) { return v == 0.0f; }),
        "memcpy sees memset_async on the default stream" + on);

  // Streams, events, timing, cross-stream waits.
  const auto range = runtime.stream_priority_range();
  check(range.greatest <= range.least, "stream priority range is ordered");
  StreamHandle producer = runtime.create_stream(device, range.greatest);
  StreamHandle consumer = runtime.create_stream(device, range.least);
  EventHandle start = runtime.create_event(device, true);
  EventHandle end = runtime.create_event(device, true);
  EventHandle written = runtime.create_event(device, false);
  auto* pinned = static_cast<unsigned char*>(runtime.allocate_host_pinned(bytes));
  check(pinned != nullptr, "allocate_host_pinned returns memory");

  runtime.record_event(start, producer);
  for (int i = 0; i < 20; ++i) runtime.memcpy_async(b, a, bytes, CopyKind::kDeviceToDevice, producer);
  runtime.memset_async(b, 0x5a, bytes, producer);
  runtime.record_event(end, producer);
  runtime.record_event(written, producer);
  runtime.stream_wait_event(consumer, written);
  runtime.memcpy_async(pinned, b, bytes, CopyKind::kDeviceToHost, consumer);
  runtime.synchronize_stream(consumer);
  check(runtime.query_stream(consumer), "query_stream is true after synchronize_stream" + on);
  check(runtime.query_event(written), "the waited-for event is complete" + on);
  check(std::all_of(pinned, pinned + bytes, [](unsigned char v) { return v == 0x5a; }),
        "stream_wait_event orders the consumer after the producer" + on);
  // A host function on the consumer sees the copy before it (cudaLaunchHostFunc).
  struct Seen { const unsigned char* pinned; bool copied = false; } seen{pinned};
  runtime.launch_host_func(consumer, [](void* data) {
    auto* s = static_cast<Seen*>(data);
    s->copied = s->pinned[0] == 0x5a;
  }, &seen);
  runtime.synchronize_stream(consumer);
  check(seen.copied, "launch_host_func runs after the stream's earlier work" + on);
  runtime.synchronize_event(end);
  const float ms = runtime.elapsed_ms(start, end);
  check(ms > 0.0f && ms < 10000.0f, "elapsed_ms of 20 copies is positive and sane" + on);
  check(throws<std::runtime_error>([&] { runtime.elapsed_ms(start, written); }),
        "elapsed_ms with a timing-disabled event throws");
  std::printf("device %d (%s, sm_%d%d): 20 x %zu MiB device copies took %.3f ms\n", device,
              props.name.c_str(), props.major, props.minor, bytes >> 20, ms);

  // The spin kernel (torch.cuda._sleep) keeps a stream busy: 1e8 cycles are 50 ms at 2 GHz,
  // and no GPU clocks above 10 GHz.
  runtime.record_event(start, producer);
  torch_cuda::launch_spin(100'000'000, static_cast<cudaStream_t>(producer));
  runtime.record_event(end, producer);
  check(!runtime.query_stream(producer), "a stream is busy while the spin kernel runs" + on);
  runtime.synchronize_event(end);
  const float spun_ms = runtime.elapsed_ms(start, end);
  check(spun_ms > 10.0f, "1e8 cycles of the spin kernel take over 10 ms" + on);
  std::printf("device %d: 1e8 cycles of the spin kernel took %.1f ms\n", device, spun_ms);

  check(throws<torch_core::RuntimeError>([&] { runtime.destroy_stream(runtime.default_stream(device)); }),
        "destroy_stream(default) throws");

  // Out of memory is nullptr, not an exception, and leaves no error behind.
  check(runtime.allocate(device, std::size_t{1} << 50) == nullptr, "a 1 PiB allocate returns nullptr" + on);
  void* after = runtime.allocate(device, 1 << 20);
  check(after != nullptr, "allocate works again after an out-of-memory" + on);
  runtime.free(device, after);

  runtime.synchronize_device(device);
  runtime.free_host_pinned(pinned);
  for (EventHandle event : {start, end, written}) runtime.destroy_event(event);
  runtime.destroy_stream(producer);
  runtime.destroy_stream(consumer);
  runtime.free(device, a);
  runtime.free(device, b);

  const double error = torch_cuda::device_add_round_trip(device, 1 << 22);
  check(error < 1e-4, "add kernel matches the host" + on);
  std::printf("device %d: add round trip max error %g\n", device, error);
}

// Stream capture as the simulated runtime models it: captured work runs only when the
// graph is launched, and the calls the simulator refuses during capture fail here too.
void check_graphs(torch_cuda::CudaRuntime& runtime, int device) {
  const std::string on = " (device " + std::to_string(device) + ")";
  runtime.set_current_device(device);
  const std::size_t bytes = 1 << 20;
  StreamHandle stream = runtime.create_stream(device, 0);
  void* source = runtime.allocate(device, bytes);
  void* target = runtime.allocate(device, bytes);
  runtime.memset_async(target, 0, bytes, stream);
  runtime.synchronize_stream(stream);

  check(runtime.capture_id(stream) == 0, "a stream is not capturing before begin_capture" + on);
  runtime.begin_capture(stream, torch_core::CaptureMode::kGlobal);
  check(runtime.capture_id(stream) != 0, "capture_id names the capture" + on);
  runtime.memset_async(source, 7, bytes, stream);
  runtime.memcpy_async(target, source, bytes, CopyKind::kDeviceToDevice, stream);
  torch_core::GraphHandle graph = runtime.end_capture(stream);
  check(runtime.capture_id(stream) == 0, "end_capture ends the capture" + on);
  std::vector<unsigned char> host(bytes, 1);
  runtime.memcpy(host.data(), target, bytes, CopyKind::kDeviceToHost);
  check(std::all_of(host.begin(), host.end(), [](unsigned char v) { return v == 0; }),
        "captured work does not run at capture" + on);
  // The test's own temporary directory (Bazel sets TMPDIR to it), else the system's.
  const std::string dot = (std::filesystem::temp_directory_path() / "cuda_runtime_test_graph.dot").string();
  runtime.dump_graph(graph, dot);
  std::FILE* file = std::fopen(dot.c_str(), "r");
  check(file != nullptr, "dump_graph writes a DOT file" + on);
  if (file != nullptr) std::fclose(file);
  torch_core::GraphExecHandle exec = runtime.instantiate_graph(graph);
  runtime.launch_graph(exec, stream);
  runtime.synchronize_stream(stream);
  runtime.memcpy(host.data(), target, bytes, CopyKind::kDeviceToHost);
  check(std::all_of(host.begin(), host.end(), [](unsigned char v) { return v == 7; }),
        "a launched graph runs the captured work" + on);
  runtime.destroy_graph_exec(exec);
  runtime.destroy_graph(graph);

  // Copies from and to pageable memory are graph nodes: they touch host memory when the
  // graph runs (the simulator's model).
  std::vector<unsigned char> pageable(bytes, 3);
  std::vector<unsigned char> back(bytes, 0);
  runtime.begin_capture(stream, torch_core::CaptureMode::kGlobal);
  runtime.memcpy_async(source, pageable.data(), bytes, CopyKind::kHostToDevice, stream);
  runtime.memcpy_async(target, source, bytes, CopyKind::kDeviceToDevice, stream);
  runtime.memcpy_async(back.data(), target, bytes, CopyKind::kDeviceToHost, stream);
  graph = runtime.end_capture(stream);
  std::fill(pageable.begin(), pageable.end(), 9);
  exec = runtime.instantiate_graph(graph);
  runtime.launch_graph(exec, stream);
  runtime.synchronize_stream(stream);
  check(std::all_of(back.begin(), back.end(), [](unsigned char v) { return v == 9; }),
        "pageable copies in a graph read and write host memory when it runs" + on);
  std::printf("device %d: a graph's pageable copy read %s\n", device,
              back[0] == 9 ? "the host memory at launch" : back[0] == 3 ? "the memory at capture" : "neither");
  runtime.destroy_graph_exec(exec);
  runtime.destroy_graph(graph);

  // What the simulator refuses or allows during capture, cudart does too.
  check(throws<std::runtime_error>([&] { runtime.begin_capture(nullptr, torch_core::CaptureMode::kGlobal); }),
        "the legacy default stream cannot be captured" + on);
  runtime.begin_capture(stream, torch_core::CaptureMode::kGlobal);
  check(throws<std::runtime_error>([&] { runtime.synchronize_stream(stream); }),
        "synchronize_stream of a capturing stream fails" + on);
  check(throws<std::runtime_error>([&] { runtime.end_capture(stream); }),
        "a capture invalidated by a synchronisation fails to end" + on);
  runtime.begin_capture(stream, torch_core::CaptureMode::kGlobal);
  void* spare = runtime.allocate(device, bytes);
  check(spare != nullptr, "allocate works during a global capture (relaxed for the call)" + on);
  runtime.memcpy(host.data(), target, bytes, CopyKind::kDeviceToHost);  // allowed: legacy stream
  const bool free_refused = throws<std::runtime_error>([&] { runtime.free(device, spare); });
  check(free_refused, "free during a global capture fails" + on);
  check(throws<std::runtime_error>([&] { runtime.end_capture(stream); }),
        "a capture invalidated by free fails to end" + on);
  if (free_refused) runtime.free(device, spare);

  runtime.destroy_stream(stream);
  runtime.free(device, source);
  runtime.free(device, target);
  std::printf("device %d: stream capture, graph launch and the capture refusals checked\n", device);
}

}  // namespace

int main() {
  torch_cuda::CudaRuntime runtime;
  const int count = runtime.device_count();
  const std::string reason = runtime.unavailable_reason();
  check(count >= 0, "device_count() is never negative");
  check((count == 0) == !reason.empty(), "a reason is given exactly when there is no device");
  check(throws<std::out_of_range>([&] { runtime.properties(count); }, "valid indices"),
        "properties(device_count()) throws out_of_range naming the valid indices");

  try {
    if (count == 0) {
      check_no_device(runtime, reason);
    } else {
      for (int device = 0; device < count; ++device) {
        check_device(runtime, device);
        check_graphs(runtime, device);
      }
    }
  } catch (const std::exception& error) {
    check(false, std::string("unexpected exception: ") + error.what());
  }
  std::printf("%d passed, %d failed\n", checks - failures, failures);
  return failures == 0 ? 0 : 1;
}
