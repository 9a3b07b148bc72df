// A DeviceRuntime that creates the real one on first use.
//
// The pieces torch_core registers with c10 (guard, allocator, hooks) must exist as soon as
// a backend is loaded, but creating a runtime may be expensive or observable (a CUDA
// context, worker threads, a driver that is absent): PyTorch defers it to the first call
// that needs a device ("lazy init"), and a fork after it is an error. LazyRuntime lets
// every piece hold a plain DeviceRuntime& while the runtime itself is made on the first
// forwarded call, once, from any thread.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "torch_core/csrc/runtime/device_runtime.h"

namespace torch_core {

class LazyRuntime final : public DeviceRuntime {
 public:
  using Factory = std::function<std::unique_ptr<DeviceRuntime>()>;

  explicit LazyRuntime(Factory factory);
  ~LazyRuntime() override;

  // True once the runtime has been created (PyTorch's "is_initialized").
  bool initialized() const noexcept { return runtime_.load(std::memory_order_acquire) != nullptr; }
  // Creates the runtime if it does not exist yet and returns it. A failing factory
  // throws RuntimeError each time it is retried.
  DeviceRuntime& get();

  int device_count() const override;
  std::string unavailable_reason() const override;
  DeviceProperties properties(int device) const override;
  int current_device() const override;
  void set_current_device(int device) override;
  void synchronize_device(int device) override;

  void* allocate(int device, std::size_t bytes) override;
  void free(int device, void* ptr) override;
  MemoryInfo memory_info(int device) const override;
  void* allocate_host_pinned(std::size_t bytes) override;
  void free_host_pinned(void* ptr) override;
  void memset_async(void* dst, int value, std::size_t bytes, StreamHandle stream) override;
  void memcpy_async(void* dst, const void* src, std::size_t bytes, CopyKind kind,
                    StreamHandle stream) override;
  void memcpy(void* dst, const void* src, std::size_t bytes, CopyKind kind) override;

  StreamHandle default_stream(int device) override;
  StreamHandle create_stream(int device, int priority) override;
  void destroy_stream(StreamHandle stream) override;
  StreamPriorityRange stream_priority_range() const override;
  bool query_stream(StreamHandle stream) override;
  void synchronize_stream(StreamHandle stream) override;
  void launch_host_func(StreamHandle stream, void (*fn)(void*), void* data) override;

  EventHandle create_event(int device, bool enable_timing) override;
  void destroy_event(EventHandle event) override;
  void record_event(EventHandle event, StreamHandle stream) override;
  bool query_event(EventHandle event) override;
  void synchronize_event(EventHandle event) override;
  void stream_wait_event(StreamHandle stream, EventHandle event) override;
  float elapsed_ms(EventHandle start, EventHandle end) override;

  void begin_capture(StreamHandle stream, CaptureMode mode) override;
  GraphHandle end_capture(StreamHandle stream) override;
  std::uint64_t capture_id(StreamHandle stream) override;
  GraphExecHandle instantiate_graph(GraphHandle graph) override;
  void launch_graph(GraphExecHandle graph, StreamHandle stream) override;
  void destroy_graph(GraphHandle graph) override;
  void destroy_graph_exec(GraphExecHandle graph) override;
  void dump_graph(GraphHandle graph, const std::string& path) override;

  std::string ipc_memory_handle(int device, void* base) override;
  void* ipc_open_memory(int device, const std::string& handle) override;
  void ipc_close_memory(int device, void* ptr) override;
  EventHandle create_ipc_event(int device) override;
  std::string ipc_event_handle(EventHandle event) override;
  EventHandle ipc_open_event(int device, const std::string& handle) override;
  std::size_t vm_granularity(int device) override;
  void* vm_reserve(int device, std::size_t bytes) override;
  void vm_release(int device, void* base, std::size_t bytes) override;
  bool vm_map(int device, void* ptr, std::size_t bytes) override;
  void vm_unmap(int device, void* ptr, std::size_t bytes) override;

 private:
  DeviceRuntime& runtime() const { return const_cast<LazyRuntime*>(this)->get(); }

  Factory factory_;
  std::mutex mutex_;  // serialises creation only
  std::unique_ptr<DeviceRuntime> owned_;
  std::atomic<DeviceRuntime*> runtime_{nullptr};
};

}  // namespace torch_core
