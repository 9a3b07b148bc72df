// c10's GPU trace: the event, stream, synchronisation and memory calls of a backend,
// reported to Python while a tracer is active (torch._C._activate_gpu_trace, which
// torch.cuda._sanitizer and torch.cuda._gpu_trace's callbacks use). Stock CUDA torch
// reports the same calls from CUDAGuardImpl, CUDAStream and the caching allocator;
// without them the sanitizer sees kernels but no synchronisation, and flags every
// correctly synchronised cross-stream use as a race.
#pragma once

#include <cstdint>

#include <c10/core/DeviceType.h>
#include <c10/core/impl/GPUTrace.h>

namespace torch_core::gpu_trace {

// Calls `report(vtable)` when a tracer is active; one atomic load when none is.
template <typename F>
void when_tracing(F&& report) {
  if (const c10::impl::PyInterpreter* tracer = c10::impl::GPUTrace::get_trace()) report(**tracer);
}

inline std::uintptr_t id(const void* handle) { return reinterpret_cast<std::uintptr_t>(handle); }

inline void event_created(c10::DeviceType type, const void* event) {
  when_tracing([&](const auto& t) { t.trace_gpu_event_creation(type, id(event)); });
}
inline void event_deleted(c10::DeviceType type, const void* event) {
  when_tracing([&](const auto& t) { t.trace_gpu_event_deletion(type, id(event)); });
}
inline void event_recorded(c10::DeviceType type, const void* event, const void* stream) {
  when_tracing([&](const auto& t) { t.trace_gpu_event_record(type, id(event), id(stream)); });
}
inline void event_waited(c10::DeviceType type, const void* event, const void* stream) {
  when_tracing([&](const auto& t) { t.trace_gpu_event_wait(type, id(event), id(stream)); });
}
inline void event_synchronized(c10::DeviceType type, const void* event) {
  when_tracing([&](const auto& t) { t.trace_gpu_event_synchronization(type, id(event)); });
}
inline void stream_created(c10::DeviceType type, const void* stream) {
  when_tracing([&](const auto& t) { t.trace_gpu_stream_creation(type, id(stream)); });
}
inline void stream_synchronized(c10::DeviceType type, const void* stream) {
  when_tracing([&](const auto& t) { t.trace_gpu_stream_synchronization(type, id(stream)); });
}
inline void device_synchronized(c10::DeviceType type) {
  when_tracing([&](const auto& t) { t.trace_gpu_device_synchronization(type); });
}
inline void memory_allocated(c10::DeviceType type, const void* ptr) {
  when_tracing([&](const auto& t) { t.trace_gpu_memory_allocation(type, id(ptr)); });
}
inline void memory_freed(c10::DeviceType type, const void* ptr) {
  when_tracing([&](const auto& t) { t.trace_gpu_memory_deallocation(type, id(ptr)); });
}

}  // namespace torch_core::gpu_trace
