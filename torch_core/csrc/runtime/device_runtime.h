// The runtime interface a backend implements for torch_core.
//
// This is the whole of what torch_core needs to know about a device: each backend
// (CUDA over cudart, the simulated host runtime, a vendor's runtime) implements it once,
// and the device-agnostic pieces (allocator, guard, streams, generator, hooks) are written
// over it. It has no torch or vendor types on purpose, so a runtime and its tests build
// without either.
//
// Errors: a failing call throws RuntimeError naming the call and what to do, except
// allocate(), which returns nullptr when the device is out of memory so that a caching
// allocator can free its cache and retry before it raises.
//
// The current device (CUDA's rules, which a backend's runtime may rely on): a call that
// acts on a stream is made with the stream's device current, since a device's default
// stream may stand for "the current device's" (cudaStreamLegacy does); work is launched
// only on a stream of the current device; an event is recorded only on a stream of its
// own device. CurrentDeviceScope (current_device_scope.h) is how callers keep them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "torch_core/csrc/runtime/runtime_handles.h"

namespace torch_core {

// What other calls a stream capture forbids (cudaStreamCaptureMode): calls that could
// synchronise with the captured work are refused from any thread (kGlobal), from the
// capturing thread (kThreadLocal), or only where they touch the capture itself (kRelaxed).
enum class CaptureMode { kGlobal, kThreadLocal, kRelaxed };

enum class CopyKind { kHostToDevice, kDeviceToHost, kDeviceToDevice };

struct DeviceProperties {
  std::string name;
  std::size_t total_memory_bytes = 0;
  int major = 0;  // compute capability, or the vendor's own version numbers
  int minor = 0;
  int multiprocessor_count = 0;
};

struct MemoryInfo {
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
};

// Stream priorities follow CUDA: a lower number is a higher priority, and
// greatest <= least (e.g. least 0, greatest -5).
struct StreamPriorityRange {
  int least = 0;
  int greatest = 0;
};

class RuntimeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Work queued on a stream failed: a kernel's device-side assertion in CUDA
// (cudaErrorAssert), reported by the next synchronisation.
class DeviceWorkError : public RuntimeError {
 public:
  using RuntimeError::RuntimeError;
};

// Work queued on a stream read or wrote device memory that is not allocated (CUDA's
// cudaErrorIllegalAddress), reported by the next synchronisation.
class IllegalAddressError : public DeviceWorkError {
 public:
  using DeviceWorkError::DeviceWorkError;
};

class DeviceRuntime {
 public:
  virtual ~DeviceRuntime() = default;

  // --- Devices -------------------------------------------------------------------
  // Number of usable devices; 0, never an error, when there is no device or driver.
  virtual int device_count() const = 0;
  // Why device_count() is 0 ("no CUDA driver found", ...), empty when devices exist.
  virtual std::string unavailable_reason() const = 0;
  // Throws std::out_of_range naming the valid range when `device` is not a device index
  // (as every call below taking a device index does).
  virtual DeviceProperties properties(int device) const = 0;
  // The calling thread's current device (0 until set).
  virtual int current_device() const = 0;
  virtual void set_current_device(int device) = 0;
  // Waits for all work on every stream of `device`.
  virtual void synchronize_device(int device) = 0;

  // --- Memory --------------------------------------------------------------------
  // Raw device memory; nullptr when `device` cannot satisfy the request. Allowed while a
  // stream captures (a graph's memory is allocated then), whatever the capture's mode.
  virtual void* allocate(int device, std::size_t bytes) = 0;
  virtual void free(int device, void* ptr) = 0;
  virtual MemoryInfo memory_info(int device) const = 0;
  // Page-locked host memory that async copies can use without staging.
  virtual void* allocate_host_pinned(std::size_t bytes) = 0;
  virtual void free_host_pinned(void* ptr) = 0;
  // Stream-ordered: they run after the work already queued on `stream`.
  virtual void memset_async(void* dst, int value, std::size_t bytes, StreamHandle stream) = 0;
  virtual void memcpy_async(void* dst, const void* src, std::size_t bytes, CopyKind kind,
                            StreamHandle stream) = 0;
  // Returns when the copy is complete (and, as cudaMemcpy, after prior default-stream work).
  virtual void memcpy(void* dst, const void* src, std::size_t bytes, CopyKind kind) = 0;

  // --- Streams -------------------------------------------------------------------
  // The stream work goes to when no other is chosen; lives as long as the runtime.
  virtual StreamHandle default_stream(int device) = 0;
  virtual StreamHandle create_stream(int device, int priority) = 0;
  virtual void destroy_stream(StreamHandle stream) = 0;
  virtual StreamPriorityRange stream_priority_range() const = 0;
  // True when all work queued on `stream` has completed.
  virtual bool query_stream(StreamHandle stream) = 0;
  virtual void synchronize_stream(StreamHandle stream) = 0;
  // Calls fn(data) on a host thread once the work queued on `stream` so far has
  // completed; later work on `stream` waits for it (cudaLaunchHostFunc). `fn` must not
  // call the runtime.
  virtual void launch_host_func(StreamHandle stream, void (*fn)(void*), void* data) = 0;

  // --- Events --------------------------------------------------------------------
  virtual EventHandle create_event(int device, bool enable_timing) = 0;
  virtual void destroy_event(EventHandle event) = 0;
  // Captures the work queued on `stream` so far; the event completes after it.
  virtual void record_event(EventHandle event, StreamHandle stream) = 0;
  virtual bool query_event(EventHandle event) = 0;
  virtual void synchronize_event(EventHandle event) = 0;
  // Work queued on `stream` after this call waits for `event` (no host blocking).
  virtual void stream_wait_event(StreamHandle stream, EventHandle event) = 0;
  // Milliseconds between two completed, timing-enabled events.
  virtual float elapsed_ms(EventHandle start, EventHandle end) = 0;

  // --- Graphs (stream capture) ---------------------------------------------------
  // Optional: a runtime without graphs keeps these defaults, which refuse clearly.
  // From begin_capture() on, work queued on `stream` (and on streams that wait on an
  // event recorded in the capture) is recorded, not run, until end_capture() returns it
  // as a graph. A call that would synchronise with captured work fails and invalidates
  // the capture, whose end_capture() then fails too (CUDA's rules).
  virtual void begin_capture(StreamHandle /*stream*/, CaptureMode /*mode*/) {
    no_graphs("begin_capture");
  }
  virtual GraphHandle end_capture(StreamHandle /*stream*/) { no_graphs("end_capture"); }
  // The id of the capture `stream` takes part in; 0 when it is not capturing.
  virtual std::uint64_t capture_id(StreamHandle /*stream*/) { return 0; }
  virtual GraphExecHandle instantiate_graph(GraphHandle /*graph*/) {
    no_graphs("instantiate_graph");
  }
  // Queues one run of the graph's work on `stream`, a stream of the graph's device.
  virtual void launch_graph(GraphExecHandle /*graph*/, StreamHandle /*stream*/) {
    no_graphs("launch_graph");
  }
  virtual void destroy_graph(GraphHandle /*graph*/) { no_graphs("destroy_graph"); }
  virtual void destroy_graph_exec(GraphExecHandle /*graph*/) { no_graphs("destroy_graph_exec"); }
  // Writes a description of a captured graph to `path` (Graphviz DOT for CUDA's).
  virtual void dump_graph(GraphHandle /*graph*/, const std::string& /*path*/) {
    no_graphs("dump_graph");
  }

  // --- Interprocess sharing (CUDA IPC) -------------------------------------------
  // Optional: a runtime without it keeps these defaults, which refuse clearly. Handles
  // are kIpcHandleBytes bytes (cudaIpcMemHandle_t, cudaIpcEventHandle_t) that another
  // process of the same machine opens; opening one's own handle is an error, as in CUDA.
  static constexpr std::size_t kIpcHandleBytes = 64;
  // A handle to the allocation that allocate() returned as `base` on `device`
  // (cudaIpcGetMemHandle); the same bytes for as long as the allocation lives.
  virtual std::string ipc_memory_handle(int /*device*/, void* /*base*/) { no_ipc("ipc_memory_handle"); }
  // Maps another process's allocation as memory of `device`, which must be current
  // (cudaIpcOpenMemHandle); usable until ipc_close_memory(), never free()d.
  virtual void* ipc_open_memory(int /*device*/, const std::string& /*handle*/) { no_ipc("ipc_open_memory"); }
  virtual void ipc_close_memory(int /*device*/, void* /*ptr*/) { no_ipc("ipc_close_memory"); }
  // An event that other processes can wait for (cudaEventInterprocess, no timing); the
  // usual event calls and destroy_event() apply to it.
  virtual EventHandle create_ipc_event(int /*device*/) { no_ipc("create_ipc_event"); }
  virtual std::string ipc_event_handle(EventHandle /*event*/) { no_ipc("ipc_event_handle"); }
  // Another process's event as an event of `device` (current): stream_wait_event(),
  // query_event() and synchronize_event() see the records made there; destroy_event()
  // closes it.
  virtual EventHandle ipc_open_event(int /*device*/, const std::string& /*handle*/) {
    no_ipc("ipc_open_event");
  }

  // --- Virtual memory (expandable segments) ---------------------------------------
  // Optional: a runtime without it keeps these defaults (vm_granularity() 0, the others
  // refuse clearly). Address space is reserved once, then device memory is mapped into it
  // and unmapped again piece by piece (cuMemAddressReserve, cuMemCreate + cuMemMap,
  // cuMemUnmap): what lets a caching allocator grow a segment in place.
  // The unit of reservations, mappings and their addresses; 0: no virtual memory calls.
  virtual std::size_t vm_granularity(int /*device*/) { return 0; }
  // Unmapped address space of `bytes` (a multiple of the granularity) for `device`.
  virtual void* vm_reserve(int /*device*/, std::size_t /*bytes*/) { no_vm("vm_reserve"); }
  // Gives back what vm_reserve() returned; nothing in it may still be mapped.
  virtual void vm_release(int /*device*/, void* /*base*/, std::size_t /*bytes*/) { no_vm("vm_release"); }
  // Backs [ptr, ptr + bytes), granularity-aligned inside a reservation, with new memory
  // of `device`, readable and writable there; false when the device is out of memory (as
  // allocate() returns nullptr).
  virtual bool vm_map(int /*device*/, void* /*ptr*/, std::size_t /*bytes*/) { no_vm("vm_map"); }
  // Unmaps exactly a range that one vm_map() mapped and frees its memory, after the work
  // queued on the device's streams (as free()).
  virtual void vm_unmap(int /*device*/, void* /*ptr*/, std::size_t /*bytes*/) { no_vm("vm_unmap"); }

 private:
  [[noreturn]] static void no_graphs(const char* call) {
    throw RuntimeError(std::string(call) +
                       ": this device's runtime does not support graphs (stream capture)");
  }
  [[noreturn]] static void no_ipc(const char* call) {
    throw RuntimeError(std::string(call) +
                       ": this device's runtime cannot share memory or events with other processes");
  }
  [[noreturn]] static void no_vm(const char* call) {
    throw RuntimeError(std::string(call) + ": this device's runtime has no virtual memory management (check "
                       "vm_granularity() first)");
  }
};

}  // namespace torch_core
