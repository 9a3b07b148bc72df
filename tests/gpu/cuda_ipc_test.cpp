// CudaRuntime's interprocess calls between two real processes: the parent allocates,
// queues work behind a host function and records an interprocess event; a child opens
// the memory and event handles, waits for the event on its own stream, reads the
// parent's bytes and writes its own back. The process forks before anything touches
// CUDA, as CUDA requires of a child that uses it. Without a device: the handle checks
// and the refusal of a device index that does not exist.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "tests/gpu/test_util.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_device_runtime.h"

namespace {

using gpu_test::check;
using gpu_test::contains;
using torch_core::CopyKind;

constexpr std::size_t kBytes = 1 << 20;
constexpr int kParentByte = 5;
constexpr int kChildByte = 9;

bool read_all(int fd, void* data, std::size_t bytes) {
  auto* out = static_cast<char*>(data);
  while (bytes > 0) {
    const ssize_t got = read(fd, out, bytes);
    if (got <= 0) return false;
    out += got;
    bytes -= static_cast<std::size_t>(got);
  }
  return true;
}

bool write_all(int fd, const void* data, std::size_t bytes) {
  const auto* in = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t put = write(fd, in, bytes);
    if (put <= 0) return false;
    in += put;
    bytes -= static_cast<std::size_t>(put);
  }
  return true;
}

void sleep_200ms(void* /*unused*/) { std::this_thread::sleep_for(std::chrono::milliseconds(200)); }

// The child: 0 when it saw the parent's bytes after the event and wrote its own.
int consumer(int from_parent, int to_parent) {
  char mode = 0;
  if (!read_all(from_parent, &mode, 1) || mode != 'd') return 0;  // no device: nothing to open
  std::string memory(torch_core::DeviceRuntime::kIpcHandleBytes, '\0');
  std::string event(torch_core::DeviceRuntime::kIpcHandleBytes, '\0');
  if (!read_all(from_parent, &memory[0], memory.size()) || !read_all(from_parent, &event[0], event.size())) return 2;
  int status = 0;
  try {
    torch_cuda::CudaRuntime runtime;
    runtime.set_current_device(0);
    void* shared = runtime.ipc_open_memory(0, memory);
    torch_core::EventHandle ready = runtime.ipc_open_event(0, event);
    torch_core::StreamHandle stream = runtime.create_stream(0, 0);
    runtime.stream_wait_event(stream, ready);
    auto* host = static_cast<unsigned char*>(runtime.allocate_host_pinned(kBytes));
    runtime.memcpy_async(host, shared, kBytes, CopyKind::kDeviceToHost, stream);
    runtime.synchronize_stream(stream);
    if (!std::all_of(host, host + kBytes, [](unsigned char b) { return b == kParentByte; })) status = 3;
    runtime.memset_async(shared, kChildByte, kBytes, stream);
    runtime.synchronize_stream(stream);
    runtime.free_host_pinned(host);
    runtime.destroy_stream(stream);
    runtime.destroy_event(ready);
    runtime.ipc_close_memory(0, shared);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "consumer: %s\n", error.what());
    status = 4;
  }
  write_all(to_parent, &status, sizeof(status));
  return status;
}

void host_checks(torch_cuda::CudaRuntime& runtime, int count) {
  // A bad handle throws torch_core::RuntimeError, a missing device std::out_of_range.
  std::string bad = "(nothing thrown)";
  try {
    runtime.ipc_open_memory(count > 0 ? 0 : 7, "short");
  } catch (const std::exception& error) {
    bad = error.what();
  }
  check(contains(bad, count > 0 ? "invalid CUDA IPC handle of 5 bytes" : "invalid CUDA device index 7"),
        "a bad handle or device is refused: " + bad);
}

void producer(torch_cuda::CudaRuntime& runtime, int to_child, int from_child) {
  runtime.set_current_device(0);
  void* memory = runtime.allocate(0, kBytes);
  torch_core::StreamHandle stream = runtime.create_stream(0, 0);
  // The child must see these bytes although they are written 200 ms after the handles go.
  runtime.launch_host_func(stream, sleep_200ms, nullptr);
  runtime.memset_async(memory, kParentByte, kBytes, stream);
  torch_core::EventHandle written = runtime.create_ipc_event(0);
  runtime.record_event(written, stream);
  const std::string memory_handle = runtime.ipc_memory_handle(0, memory);
  check(memory_handle == runtime.ipc_memory_handle(0, memory), "the same allocation gives the same handle");
  const std::string event_handle = runtime.ipc_event_handle(written);
  const char mode = 'd';
  write_all(to_child, &mode, 1);
  write_all(to_child, memory_handle.data(), memory_handle.size());
  write_all(to_child, event_handle.data(), event_handle.size());
  int status = -1;
  check(read_all(from_child, &status, sizeof(status)) && status == 0,
        "the child read the parent's bytes after the event and wrote its own (status " + std::to_string(status) + ")");
  std::vector<unsigned char> host(kBytes, 0);
  runtime.memcpy(host.data(), memory, kBytes, CopyKind::kDeviceToHost);
  check(std::all_of(host.begin(), host.end(), [](unsigned char b) { return b == kChildByte; }),
        "the parent sees the child's bytes");
  runtime.destroy_event(written);
  runtime.destroy_stream(stream);
  runtime.free(0, memory);
}

}  // namespace

int main() {
  int down[2];
  int up[2];
  if (pipe(down) != 0 || pipe(up) != 0) return 2;
  const pid_t child = fork();
  if (child == 0) {
    close(down[1]);
    close(up[0]);
    _exit(consumer(down[0], up[1]));
  }
  close(down[0]);
  close(up[1]);
  std::string reason;
  const int count = gpu_test::device_count(reason);
  torch_cuda::CudaRuntime runtime;
  try {
    host_checks(runtime, count);
    if (count == 0) {
      std::printf("skipped: no CUDA device (%s): IPC not run; handle and device checks only\n", reason.c_str());
      const char mode = 'n';
      write_all(down[1], &mode, 1);
    } else {
      producer(runtime, down[1], up[0]);
      std::printf("device 0: CUDA IPC checks run\n");
    }
  } catch (const std::exception& error) {
    check(false, std::string("unexpected exception: ") + error.what());
  }
  close(down[1]);
  int child_status = 0;
  waitpid(child, &child_status, 0);
  check(WIFEXITED(child_status) && WEXITSTATUS(child_status) == 0, "the child exits cleanly");
  return gpu_test::finish();
}
