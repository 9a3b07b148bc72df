// The simulated runtime: torch_core's runtime interface over host memory and host
// threads, torch-free and vendor-free. It is the device CI runs everywhere and the
// reference a new vendor's runtime is compared with.
//
// Model (the why of each choice is beside the code):
// - Device memory is aligned host memory, charged against a per-device capacity;
//   allocate() returns nullptr past it, and every pointer handed back is checked. Memory
//   mapped into reserved address space (vm_map) is charged to the same capacity.
// - Every stream, each device's default stream included, is a worker thread running its
//   queue in order; streams run concurrently, so missing synchronisation gives wrong
//   results rather than passing by luck. Priorities are recorded, not scheduled.
// - Events are marker items in a stream's queue, timed by the worker that reaches them.
// - Copies follow CUDA's host-memory rules: a copy from pageable host memory is staged at
//   the call, a copy to pageable host memory returns when done, pinned memory is async.
// - free() and free_host_pinned() wait for the device's (all devices') streams first, as
//   cudaFree and cudaFreeHost synchronize, so queued work never touches freed memory.
// - An exception thrown by stream work is kept and raised as DeviceWorkError by the next
//   synchronize_stream / synchronize_device (or blocking memcpy) of that stream, once.
// - What is not allocated of device memory is inaccessible: stream work that reads or
//   writes it (a stale pointer after free(), unmapped reserved space) fails as CUDA's
//   illegal memory access, IllegalAddressError (simulated_fault_guard.h).
// - A null StreamHandle means the current device's default stream, as stream 0 in CUDA.
// - CUDA's rules on the current device are enforced, since on a GPU breaking them acts on
//   the wrong device rather than failing: a device's default stream is used only while
//   that device is current (CUDA's default stream names the current device's), work is
//   launched only on a stream of the current device, an event is recorded only on a
//   stream of its own device and elapsed_ms() takes two events of one device.
// - Stream capture records the work queued on the capturing streams instead of running
//   it (simulated_capture.h), copies from and to pageable memory included (they touch
//   host memory when the graph runs), and refuses what cudart refuses meanwhile:
//   synchronising with or querying a capturing stream or device and (unless the capture is
//   relaxed) free and free_host_pinned, which synchronise implicitly. A refused call
//   invalidates the capture. A blocking memcpy stays allowed: it orders after the legacy
//   default stream, which a capture of a created (non-blocking) stream does not involve.
//
// All methods are safe to call concurrently from any number of threads.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "torch_core/csrc/runtime/device_runtime.h"
#include "torch_core/csrc/runtime/simulated_config.h"

namespace torch_core {

class SimulatedCapture;
class SimulatedEvent;
struct SimulatedGraph;
class SimulatedIpcEventTable;
class SimulatedMemoryPool;
class SimulatedSharedMapping;
class SimulatedStream;
class SimulatedVirtualMemory;

class SimulatedRuntime final : public DeviceRuntime {
 public:
  explicit SimulatedRuntime(SimulatedConfig config = SimulatedConfig());
  // Runs what is queued on every stream, then stops the workers and frees all memory.
  ~SimulatedRuntime() override;
  SimulatedRuntime(const SimulatedRuntime&) = delete;
  SimulatedRuntime& operator=(const SimulatedRuntime&) = delete;

  const SimulatedConfig& config() const { return config_; }

  // --- DeviceRuntime -----------------------------------------------------------------
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
  // A DOT file with one node per captured work item, in order.
  void dump_graph(GraphHandle graph, const std::string& path) override;

  // Device memory is a shared-memory file per device; see simulated_ipc.h.
  std::string ipc_memory_handle(int device, void* base) override;
  void* ipc_open_memory(int device, const std::string& handle) override;
  void ipc_close_memory(int device, void* ptr) override;
  EventHandle create_ipc_event(int device) override;
  std::string ipc_event_handle(EventHandle event) override;
  EventHandle ipc_open_event(int device, const std::string& handle) override;

  // Reserved address space faults where it is not mapped; see simulated_virtual_memory.h.
  std::size_t vm_granularity(int device) override;
  void* vm_reserve(int device, std::size_t bytes) override;
  void vm_release(int device, void* base, std::size_t bytes) override;
  bool vm_map(int device, void* ptr, std::size_t bytes) override;
  void vm_unmap(int device, void* ptr, std::size_t bytes) override;

  // --- Beyond the interface ----------------------------------------------------------
  // Runs `work` on `stream` in stream order: the simulated device's "kernel launch".
  void enqueue(StreamHandle stream, std::function<void()> work);
  int stream_device(StreamHandle stream) const;
  // The priority the stream got, after clamping into stream_priority_range().
  int stream_priority(StreamHandle stream) const;

 private:
  using StreamPtr = std::shared_ptr<SimulatedStream>;
  using EventPtr = std::shared_ptr<SimulatedEvent>;

  struct Device {
    std::unique_ptr<SimulatedMemoryPool> memory;
    std::unique_ptr<SimulatedVirtualMemory> virtual_memory;  // charged to `memory`
    StreamPtr default_stream;
    std::string orphaned_error;  // from destroyed streams; guarded by streams_mutex_
  };

  void check_device(int device, const char* call) const;
  // Throws in a child forked after this runtime was made: its stream workers are threads
  // of the parent, so queued work would never run (CUDA answers "initialization error").
  void check_not_forked(const char* call) const;
  StreamPtr find_stream(StreamHandle stream, const char* call) const;
  // find_stream() for a call that acts on the stream, with the current-device rules.
  enum class StreamUse { kQueueOrWait, kLaunch };
  StreamPtr stream_for(StreamHandle stream, const char* call, StreamUse use) const;
  EventPtr find_event(EventHandle event, const char* call) const;
  std::vector<StreamPtr> streams_of(int device) const;  // -1: every device
  // The device whose memory holds [ptr, ptr + bytes), or -1.
  int device_holding(const void* ptr, std::size_t bytes) const;
  bool is_pinned(const void* ptr, std::size_t bytes) const;
  void check_copy(void* dst, const void* src, std::size_t bytes, CopyKind kind,
                  const char* call) const;
  // Waits for what is queued now on each stream (no errors taken).
  static void drain(const std::vector<StreamPtr>& streams);
  // Raises a stream's `failure` from `call`: IllegalAddressError for an illegal access,
  // else DeviceWorkError.
  [[noreturn]] static void throw_work_failure(const std::string& call, const std::string& failure);

  // --- Capture (simulated_runtime_graphs.cpp) ---
  using CapturePtr = std::shared_ptr<SimulatedCapture>;
  // Queues `work` on `target`, or appends it to the capture `target` takes part in.
  void submit(const StreamPtr& target, std::function<void()> work, const char* call);
  CapturePtr capture_of(const SimulatedStream* stream) const;  // null when not capturing
  // Throws (and invalidates the capture) when `stream` is capturing: `call` would wait
  // for, or report on, work that is being captured rather than run.
  void refuse_on_capturing_stream(const SimulatedStream* stream, const char* call);
  // Throws when a capture on `device` (-1: any) forbids implicitly synchronising calls
  // from this thread (its CaptureMode), invalidating it.
  void refuse_unsafe_call(int device, const char* call);
  // An event whose latest record was captured: the capture, the stream and the mark.
  struct CapturedRecord {
    std::weak_ptr<SimulatedCapture> capture;
    const SimulatedStream* stream;
    std::uint64_t mark;
  };
  // record_event/stream_wait_event/query and synchronize of events, with capture.
  bool record_in_capture(EventHandle event, const StreamPtr& on);
  bool wait_in_capture(const StreamPtr& waiter, EventHandle event);
  void refuse_captured_event(EventHandle event, const char* call);
  std::shared_ptr<SimulatedGraph> find_graph(void* handle, bool exec, const char* call) const;

  const SimulatedConfig config_;
  const std::uint64_t id_;  // keys this runtime's thread-local current device
  const int owner_pid_;  // the process that made the runtime
  std::vector<Device> devices_;
  std::unique_ptr<SimulatedMemoryPool> pinned_;

  mutable std::mutex streams_mutex_;
  std::unordered_map<StreamHandle, StreamPtr> streams_;  // default streams included
  mutable std::mutex events_mutex_;
  std::unordered_map<EventHandle, EventPtr> events_;

  std::atomic<int> captures_underway_{0};  // fast path: no capture, no lookups
  mutable std::mutex captures_mutex_;
  std::uint64_t next_capture_id_ = 1;
  std::unordered_map<const SimulatedStream*, CapturePtr> captures_;  // every member stream
  std::unordered_map<EventHandle, CapturedRecord> captured_records_;
  std::unordered_map<void*, std::shared_ptr<SimulatedGraph>> graphs_;       // captured
  std::unordered_map<void*, std::shared_ptr<SimulatedGraph>> graph_execs_;  // instantiated

  // --- Interprocess sharing (simulated_runtime_ipc.cpp) ---
  void add_event(const EventPtr& event);
  struct OpenedMemory {
    int device;
    std::shared_ptr<SimulatedSharedMapping> mapping;
  };
  std::mutex ipc_mutex_;
  std::unordered_map<void*, OpenedMemory> opened_memory_;  // by the pointer handed out
  const std::shared_ptr<SimulatedIpcEventTable> ipc_events_;
};

}  // namespace torch_core
