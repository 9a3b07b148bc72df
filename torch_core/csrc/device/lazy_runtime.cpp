#include "torch_core/csrc/device/lazy_runtime.h"

#include <utility>

namespace torch_core {

LazyRuntime::LazyRuntime(Factory factory) : factory_(std::move(factory)) {}

// Backends are process-wide and leaked (c10 registries keep raw pointers to the pieces
// built on this runtime), so this runs only for runtimes made in tests.
LazyRuntime::~LazyRuntime() = default;

DeviceRuntime& LazyRuntime::get() {
  if (DeviceRuntime* ready = runtime_.load(std::memory_order_acquire)) return *ready;
  std::lock_guard<std::mutex> lock(mutex_);
  if (DeviceRuntime* ready = runtime_.load(std::memory_order_relaxed)) return *ready;
  if (!factory_) throw RuntimeError("LazyRuntime: no factory to create the device runtime");
  owned_ = factory_();
  if (!owned_) throw RuntimeError("LazyRuntime: the runtime factory returned no runtime");
  runtime_.store(owned_.get(), std::memory_order_release);
  return *owned_;
}

int LazyRuntime::device_count() const { return runtime().device_count(); }
std::string LazyRuntime::unavailable_reason() const { return runtime().unavailable_reason(); }
DeviceProperties LazyRuntime::properties(int device) const { return runtime().properties(device); }
int LazyRuntime::current_device() const { return runtime().current_device(); }
void LazyRuntime::set_current_device(int device) { runtime().set_current_device(device); }
void LazyRuntime::synchronize_device(int device) { runtime().synchronize_device(device); }

void* LazyRuntime::allocate(int device, std::size_t bytes) { return runtime().allocate(device, bytes); }
void LazyRuntime::free(int device, void* ptr) { runtime().free(device, ptr); }
MemoryInfo LazyRuntime::memory_info(int device) const { return runtime().memory_info(device); }
void* LazyRuntime::allocate_host_pinned(std::size_t bytes) { return runtime().allocate_host_pinned(bytes); }
void LazyRuntime::free_host_pinned(void* ptr) { runtime().free_host_pinned(ptr); }
void LazyRuntime::memset_async(void* dst, int value, std::size_t bytes, StreamHandle stream) {
  runtime().memset_async(dst, value, bytes, stream);
}
void LazyRuntime::memcpy_async(void* dst, const void* src, std::size_t bytes, CopyKind kind,
                               StreamHandle stream) {
  runtime().memcpy_async(dst, src, bytes, kind, stream);
}
void LazyRuntime::memcpy(void* dst, const void* src, std::size_t bytes, CopyKind kind) {
  runtime().memcpy(dst, src, bytes, kind);
}

StreamHandle LazyRuntime::default_stream(int device) { return runtime().default_stream(device); }
StreamHandle LazyRuntime::create_stream(int device, int priority) {
  return runtime().create_stream(device, priority);
}
void LazyRuntime::destroy_stream(StreamHandle stream) { runtime().destroy_stream(stream); }
StreamPriorityRange LazyRuntime::stream_priority_range() const { return runtime().stream_priority_range(); }
bool LazyRuntime::query_stream(StreamHandle stream) { return runtime().query_stream(stream); }
void LazyRuntime::synchronize_stream(StreamHandle stream) { runtime().synchronize_stream(stream); }

void LazyRuntime::launch_host_func(StreamHandle stream, void (*fn)(void*), void* data) {
  runtime().launch_host_func(stream, fn, data);
}

EventHandle LazyRuntime::create_event(int device, bool enable_timing) {
  return runtime().create_event(device, enable_timing);
}
void LazyRuntime::destroy_event(EventHandle event) { runtime().destroy_event(event); }
void LazyRuntime::record_event(EventHandle event, StreamHandle stream) { runtime().record_event(event, stream); }
bool LazyRuntime::query_event(EventHandle event) { return runtime().query_event(event); }
void LazyRuntime::synchronize_event(EventHandle event) { runtime().synchronize_event(event); }
void LazyRuntime::stream_wait_event(StreamHandle stream, EventHandle event) {
  runtime().stream_wait_event(stream, event);
}
float LazyRuntime::elapsed_ms(EventHandle start, EventHandle end) { return runtime().elapsed_ms(start, end); }

void LazyRuntime::begin_capture(StreamHandle stream, CaptureMode mode) { runtime().begin_capture(stream, mode); }
GraphHandle LazyRuntime::end_capture(StreamHandle stream) { return runtime().end_capture(stream); }
std::uint64_t LazyRuntime::capture_id(StreamHandle stream) { return runtime().capture_id(stream); }
GraphExecHandle LazyRuntime::instantiate_graph(GraphHandle graph) { return runtime().instantiate_graph(graph); }
void LazyRuntime::launch_graph(GraphExecHandle graph, StreamHandle stream) { runtime().launch_graph(graph, stream); }
void LazyRuntime::destroy_graph(GraphHandle graph) { runtime().destroy_graph(graph); }
void LazyRuntime::destroy_graph_exec(GraphExecHandle graph) { runtime().destroy_graph_exec(graph); }
void LazyRuntime::dump_graph(GraphHandle graph, const std::string& path) { runtime().dump_graph(graph, path); }

std::string LazyRuntime::ipc_memory_handle(int device, void* base) { return runtime().ipc_memory_handle(device, base); }
void* LazyRuntime::ipc_open_memory(int device, const std::string& handle) {
  return runtime().ipc_open_memory(device, handle);
}
void LazyRuntime::ipc_close_memory(int device, void* ptr) { runtime().ipc_close_memory(device, ptr); }
EventHandle LazyRuntime::create_ipc_event(int device) { return runtime().create_ipc_event(device); }
std::string LazyRuntime::ipc_event_handle(EventHandle event) { return runtime().ipc_event_handle(event); }
EventHandle LazyRuntime::ipc_open_event(int device, const std::string& handle) {
  return runtime().ipc_open_event(device, handle);
}
std::size_t LazyRuntime::vm_granularity(int device) { return runtime().vm_granularity(device); }
void* LazyRuntime::vm_reserve(int device, std::size_t bytes) { return runtime().vm_reserve(device, bytes); }
void LazyRuntime::vm_release(int device, void* base, std::size_t bytes) { runtime().vm_release(device, base, bytes); }
bool LazyRuntime::vm_map(int device, void* ptr, std::size_t bytes) { return runtime().vm_map(device, ptr, bytes); }
void LazyRuntime::vm_unmap(int device, void* ptr, std::size_t bytes) { runtime().vm_unmap(device, ptr, bytes); }

}  // namespace torch_core
