// torch_core's runtime interface over cudart.
//
// Handles are cudart's own: a StreamHandle is a cudaStream_t and an EventHandle a
// cudaEvent_t, so kernels launch on them directly. Created streams are non-blocking
// (cudaStreamNonBlocking, as PyTorch's pool streams): they never synchronize implicitly
// with the legacy default stream.
//
// The default stream is cudaStreamLegacy for every device. Like stream 0 it names the
// legacy default stream of the device that is current when it is used, so callers set
// the device first (torch_core's guard does, as c10's CUDAGuard does for stream 0). It is
// preferred to 0 because 0 changes meaning when a translation unit is compiled with
// --default-stream per-thread, while cudaStreamLegacy always names the stream that
// cudaMemcpy orders after, which is what memcpy()'s contract promises.
#pragma once

#include <cstdint>
#include <string>

#include "torch_core/csrc/runtime/device_runtime.h"

namespace torch_cuda {

class CudaRuntime final : public torch_core::DeviceRuntime {
 public:
  // --- Devices -------------------------------------------------------------------
  int device_count() const override;
  std::string unavailable_reason() const override;
  torch_core::DeviceProperties properties(int device) const override;
  int current_device() const override;
  void set_current_device(int device) override;
  void synchronize_device(int device) override;

  // --- Memory --------------------------------------------------------------------
  void* allocate(int device, std::size_t bytes) override;
  void free(int device, void* ptr) override;
  torch_core::MemoryInfo memory_info(int device) const override;
  void* allocate_host_pinned(std::size_t bytes) override;
  void free_host_pinned(void* ptr) override;
  void memset_async(void* dst, int value, std::size_t bytes,
                    torch_core::StreamHandle stream) override;
  void memcpy_async(void* dst, const void* src, std::size_t bytes, torch_core::CopyKind kind,
                    torch_core::StreamHandle stream) override;
  void memcpy(void* dst, const void* src, std::size_t bytes, torch_core::CopyKind kind) override;

  // --- Streams -------------------------------------------------------------------
  torch_core::StreamHandle default_stream(int device) override;
  torch_core::StreamHandle create_stream(int device, int priority) override;
  void destroy_stream(torch_core::StreamHandle stream) override;
  torch_core::StreamPriorityRange stream_priority_range() const override;
  bool query_stream(torch_core::StreamHandle stream) override;
  void synchronize_stream(torch_core::StreamHandle stream) override;
  void launch_host_func(torch_core::StreamHandle stream, void (*fn)(void*), void* data) override;

  // --- Events --------------------------------------------------------------------
  torch_core::EventHandle create_event(int device, bool enable_timing) override;
  void destroy_event(torch_core::EventHandle event) override;
  void record_event(torch_core::EventHandle event, torch_core::StreamHandle stream) override;
  bool query_event(torch_core::EventHandle event) override;
  void synchronize_event(torch_core::EventHandle event) override;
  void stream_wait_event(torch_core::StreamHandle stream, torch_core::EventHandle event) override;
  float elapsed_ms(torch_core::EventHandle start, torch_core::EventHandle end) override;

  // --- Graphs: stream capture (cuda_device_graphs.cpp) ----------------------------
  // A GraphHandle is a cudaGraph_t and a GraphExecHandle a cudaGraphExec_t.
  void begin_capture(torch_core::StreamHandle stream, torch_core::CaptureMode mode) override;
  torch_core::GraphHandle end_capture(torch_core::StreamHandle stream) override;
  std::uint64_t capture_id(torch_core::StreamHandle stream) override;
  torch_core::GraphExecHandle instantiate_graph(torch_core::GraphHandle graph) override;
  void launch_graph(torch_core::GraphExecHandle graph, torch_core::StreamHandle stream) override;
  void destroy_graph(torch_core::GraphHandle graph) override;
  void destroy_graph_exec(torch_core::GraphExecHandle graph) override;
  void dump_graph(torch_core::GraphHandle graph, const std::string& path) override;

  // --- Interprocess sharing: CUDA IPC ------------------------------------------------
  // Handles are the bytes of cudaIpcMemHandle_t and cudaIpcEventHandle_t.
  std::string ipc_memory_handle(int device, void* base) override;
  void* ipc_open_memory(int device, const std::string& handle) override;
  void ipc_close_memory(int device, void* ptr) override;
  torch_core::EventHandle create_ipc_event(int device) override;
  std::string ipc_event_handle(torch_core::EventHandle event) override;
  torch_core::EventHandle ipc_open_event(int device, const std::string& handle) override;

  // --- Virtual memory: the driver API (cuda_device_vm.cpp) --------------------------
  // Each vm_map() is one cuMemCreate allocation; vm_granularity() is 0 where the driver or
  // device has no virtual memory management.
  std::size_t vm_granularity(int device) override;
  void* vm_reserve(int device, std::size_t bytes) override;
  void vm_release(int device, void* base, std::size_t bytes) override;
  bool vm_map(int device, void* ptr, std::size_t bytes) override;
  void vm_unmap(int device, void* ptr, std::size_t bytes) override;
};

}  // namespace torch_cuda
