#include "torch_core/csrc/runtime/simulated_runtime.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <utility>

#include <pthread.h>
#include <unistd.h>

#include "torch_core/csrc/runtime/pointer_text.h"
#include "torch_core/csrc/runtime/simulated_event.h"
#include "torch_core/csrc/runtime/simulated_fault_guard.h"
#include "torch_core/csrc/runtime/simulated_ipc.h"
#include "torch_core/csrc/runtime/simulated_memory.h"
#include "torch_core/csrc/runtime/simulated_stream.h"
#include "torch_core/csrc/runtime/simulated_virtual_memory.h"

namespace torch_core {
namespace {

// CUDA's usual range on current GPUs is least 0, greatest -5; a narrower one keeps the
// clamping visible in tests without pretending the simulator schedules by priority.
constexpr StreamPriorityRange kPriorityRange{0, -2};

std::atomic<std::uint64_t> next_runtime_id{1};

// Set in every child forked after a runtime existed (pthread_atfork), so the check on the
// hot paths is one load until a fork happens.
std::atomic<bool> forked_since_a_runtime{false};

void register_fork_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    pthread_atfork(nullptr, nullptr, [] { forked_since_a_runtime.store(true); });
  });
}

// The current device is per thread (as cudaSetDevice's) and per runtime, so that two
// runtimes in one process (tests make several) cannot see each other's setting.
thread_local std::unordered_map<std::uint64_t, int> current_devices;

}  // namespace

SimulatedRuntime::SimulatedRuntime(SimulatedConfig config)
    : config_(config),
      id_(next_runtime_id.fetch_add(1)),
      owner_pid_(static_cast<int>(getpid())),
      ipc_events_(std::make_shared<SimulatedIpcEventTable>()) {
  register_fork_handler();
  if (config_.device_count < 0) {
    throw RuntimeError("SimulatedConfig: device_count is " + std::to_string(config_.device_count) +
                       "; expected 0 or more");
  }
  devices_.resize(static_cast<std::size_t>(config_.device_count));
  for (int device = 0; device < config_.device_count; ++device) {
    Device& state = devices_[static_cast<std::size_t>(device)];
    state.memory = std::make_unique<SimulatedMemoryPool>(config_.memory_bytes_per_device, /*shared=*/true);
    state.virtual_memory = std::make_unique<SimulatedVirtualMemory>(*state.memory);
    state.default_stream = std::make_shared<SimulatedStream>(device, kPriorityRange.least);
    streams_.emplace(state.default_stream.get(), state.default_stream);
  }
  // Pinned memory is bounded by the host only.
  pinned_ = std::make_unique<SimulatedMemoryPool>(std::numeric_limits<std::size_t>::max());
}

SimulatedRuntime::~SimulatedRuntime() {
  for (auto& entry : streams_) entry.second->shutdown();
}

void SimulatedRuntime::throw_work_failure(const std::string& call, const std::string& failure) {
  const std::string message = call + " failed: " + failure;
  if (failure.rfind(simulated_faults::kIllegalAccess, 0) == 0) throw IllegalAddressError(message);
  throw DeviceWorkError(message);
}

void SimulatedRuntime::check_not_forked(const char* call) const {
  if (!forked_since_a_runtime.load(std::memory_order_relaxed) || getpid() == owner_pid_) return;
  throw RuntimeError(std::string(call) +
                     ": initialization error: the simulated runtime was initialised in the parent "
                     "process, and a forked child cannot use it (its stream workers are the "
                     "parent's threads). Use the 'spawn' start method for multiprocessing, as "
                     "with CUDA.");
}

// --- Devices -------------------------------------------------------------------------

int SimulatedRuntime::device_count() const { return config_.device_count; }

std::string SimulatedRuntime::unavailable_reason() const {
  if (config_.device_count > 0) return "";
  return "the simulated runtime is configured with 0 devices (TORCH_SIM_DEVICE_COUNT=0 or "
         "SimulatedConfig::device_count = 0)";
}

void SimulatedRuntime::check_device(int device, const char* call) const {
  if (device >= 0 && device < config_.device_count) return;
  const std::string count = std::to_string(config_.device_count);
  std::string message = std::string(call) + ": invalid simulated device index " +
                        std::to_string(device) + ": the simulated runtime has " + count +
                        " device(s), ";
  message += config_.device_count == 0
                 ? "so there are no valid indices"
                 : "valid indices are 0.." + std::to_string(config_.device_count - 1);
  throw std::out_of_range(message + " (set TORCH_SIM_DEVICE_COUNT for more)");
}

DeviceProperties SimulatedRuntime::properties(int device) const {
  check_device(device, "properties");
  DeviceProperties props;
  props.name = "Simulated Device " + std::to_string(device);
  props.total_memory_bytes = config_.memory_bytes_per_device;
  props.major = 1;  // the simulator's own version, not a compute capability
  props.minor = 0;
  props.multiprocessor_count = 1;  // a stream runs one item at a time
  return props;
}

int SimulatedRuntime::current_device() const {
  const auto it = current_devices.find(id_);
  return it == current_devices.end() ? 0 : it->second;
}

void SimulatedRuntime::set_current_device(int device) {
  check_device(device, "set_current_device");
  current_devices[id_] = device;
}

void SimulatedRuntime::synchronize_device(int device) {
  check_not_forked("synchronize_device");
  check_device(device, "synchronize_device");
  refuse_unsafe_call(device, "synchronize_device");
  const std::vector<StreamPtr> streams = streams_of(device);
  drain(streams);
  std::string error;
  for (const StreamPtr& stream : streams) {
    std::string failure = stream->take_error();
    if (error.empty()) error = std::move(failure);
  }
  {
    std::lock_guard<std::mutex> lock(streams_mutex_);
    std::string orphaned = std::exchange(devices_[static_cast<std::size_t>(device)].orphaned_error,
                                         std::string());
    if (error.empty()) error = std::move(orphaned);
  }
  if (!error.empty()) {
    throw_work_failure("synchronize_device: work queued on simulated device " + std::to_string(device), error);
  }
}

// --- Streams -------------------------------------------------------------------------

SimulatedRuntime::StreamPtr SimulatedRuntime::find_stream(StreamHandle stream, const char* call) const {
  if (stream == nullptr) {
    const int device = current_device();
    check_device(device, call);
    return devices_[static_cast<std::size_t>(device)].default_stream;
  }
  std::lock_guard<std::mutex> lock(streams_mutex_);
  const auto it = streams_.find(stream);
  if (it == streams_.end()) {
    throw RuntimeError(std::string(call) + ": unknown stream handle " + pointer_text(stream) +
                       " (not created by this runtime, or already destroyed)");
  }
  return it->second;
}

SimulatedRuntime::StreamPtr SimulatedRuntime::stream_for(StreamHandle stream, const char* call,
                                                         StreamUse use) const {
  StreamPtr target = find_stream(stream, call);
  // A null handle is the current device's by definition; the stream workers stand for the
  // device itself, not for a host thread with a current device.
  if (stream == nullptr || SimulatedStream::current() != nullptr) return target;
  const int current = current_device();
  const int owner = target->device();
  if (owner == current) return target;
  const std::string devices = " of simulated device " + std::to_string(owner) + " while device " +
                              std::to_string(current) + " is current";
  const std::string fix = "; make device " + std::to_string(owner) +
                          " current first (a device guard around the call)";
  if (use == StreamUse::kLaunch) {
    throw RuntimeError(std::string(call) + ": work launched on a stream" + devices +
                       ": CUDA refuses a kernel launch on another device's stream" + fix);
  }
  if (devices_[static_cast<std::size_t>(owner)].default_stream == target) {
    throw RuntimeError(std::string(call) + ": the default stream" + devices +
                       ": CUDA's default stream names the current device's, so on a GPU this "
                       "call would act on device " + std::to_string(current) + fix);
  }
  return target;
}

std::vector<SimulatedRuntime::StreamPtr> SimulatedRuntime::streams_of(int device) const {
  std::vector<StreamPtr> result;
  std::lock_guard<std::mutex> lock(streams_mutex_);
  for (const auto& entry : streams_) {
    if (device < 0 || entry.second->device() == device) result.push_back(entry.second);
  }
  return result;
}

void SimulatedRuntime::drain(const std::vector<StreamPtr>& streams) {
  for (const StreamPtr& stream : streams) stream->wait(stream->last_position());
}

StreamHandle SimulatedRuntime::default_stream(int device) {
  check_device(device, "default_stream");
  return devices_[static_cast<std::size_t>(device)].default_stream.get();
}

StreamHandle SimulatedRuntime::create_stream(int device, int priority) {
  check_device(device, "create_stream");
  // As CUDA: a priority outside the range is clamped, not an error.
  const int clamped = std::min(kPriorityRange.least, std::max(kPriorityRange.greatest, priority));
  auto stream = std::make_shared<SimulatedStream>(device, clamped);
  std::lock_guard<std::mutex> lock(streams_mutex_);
  streams_.emplace(stream.get(), stream);
  return stream.get();
}

void SimulatedRuntime::destroy_stream(StreamHandle stream) {
  StreamPtr victim;
  {
    std::lock_guard<std::mutex> lock(streams_mutex_);
    const auto it = streams_.find(stream);
    if (it == streams_.end()) {
      throw RuntimeError("destroy_stream: unknown stream handle " + pointer_text(stream) +
                         " (not created by this runtime, or already destroyed)");
    }
    if (devices_[static_cast<std::size_t>(it->second->device())].default_stream == it->second) {
      throw RuntimeError("destroy_stream: the default stream of simulated device " +
                         std::to_string(it->second->device()) + " lives as long as the runtime");
    }
    if (SimulatedStream::current() == it->second.get()) {
      throw RuntimeError("destroy_stream: a stream cannot be destroyed from its own work");
    }
    refuse_on_capturing_stream(it->second.get(), "destroy_stream");
    victim = it->second;
    streams_.erase(it);
  }
  victim->shutdown();  // drains, then joins the worker
  // Its failure must not vanish with it: the device's next synchronize reports it.
  std::string error = victim->take_error();
  if (!error.empty()) {
    std::lock_guard<std::mutex> lock(streams_mutex_);
    std::string& orphaned = devices_[static_cast<std::size_t>(victim->device())].orphaned_error;
    if (orphaned.empty()) orphaned = "on a destroyed stream: " + error;
  }
}

StreamPriorityRange SimulatedRuntime::stream_priority_range() const { return kPriorityRange; }

bool SimulatedRuntime::query_stream(StreamHandle stream) {
  check_not_forked("query_stream");
  const StreamPtr target = stream_for(stream, "query_stream", StreamUse::kQueueOrWait);
  refuse_on_capturing_stream(target.get(), "query_stream");
  return target->is_complete(target->last_position());
}

void SimulatedRuntime::synchronize_stream(StreamHandle stream) {
  check_not_forked("synchronize_stream");
  const StreamPtr target = stream_for(stream, "synchronize_stream", StreamUse::kQueueOrWait);
  refuse_on_capturing_stream(target.get(), "synchronize_stream");
  target->wait(target->last_position());
  const std::string error = target->take_error();
  if (!error.empty()) {
    throw_work_failure("synchronize_stream: work queued on a stream of simulated device " +
                           std::to_string(target->device()),
                       error);
  }
}

void SimulatedRuntime::launch_host_func(StreamHandle stream, void (*fn)(void*), void* data) {
  check_not_forked("launch_host_func");
  const StreamPtr target = stream_for(stream, "launch_host_func", StreamUse::kQueueOrWait);
  if (fn == nullptr) throw RuntimeError("launch_host_func: the function is null");
  submit(target, [fn, data] { fn(data); }, "launch_host_func");
}

void SimulatedRuntime::enqueue(StreamHandle stream, std::function<void()> work) {
  check_not_forked("enqueue");
  const StreamPtr target = stream_for(stream, "enqueue", StreamUse::kLaunch);
  if (!work) throw RuntimeError("enqueue: the work item is empty");
  submit(target, std::move(work), "enqueue");
}

int SimulatedRuntime::stream_device(StreamHandle stream) const {
  return find_stream(stream, "stream_device")->device();
}

int SimulatedRuntime::stream_priority(StreamHandle stream) const {
  return find_stream(stream, "stream_priority")->priority();
}

// --- Events --------------------------------------------------------------------------

SimulatedRuntime::EventPtr SimulatedRuntime::find_event(EventHandle event, const char* call) const {
  std::lock_guard<std::mutex> lock(events_mutex_);
  const auto it = events_.find(event);
  if (it == events_.end()) {
    throw RuntimeError(std::string(call) + ": unknown event handle " + pointer_text(event) +
                       " (not created by this runtime, or already destroyed)");
  }
  return it->second;
}

EventHandle SimulatedRuntime::create_event(int device, bool enable_timing) {
  check_device(device, "create_event");
  const auto event = std::make_shared<SimulatedEvent>(device, enable_timing);
  add_event(event);
  return event.get();
}

void SimulatedRuntime::add_event(const EventPtr& event) {
  std::lock_guard<std::mutex> lock(events_mutex_);
  events_.emplace(event.get(), event);
}

void SimulatedRuntime::destroy_event(EventHandle event) {
  // Pending markers hold their own reference, so, as in CUDA, an event may be destroyed
  // before the work it captured has run.
  std::lock_guard<std::mutex> lock(events_mutex_);
  if (events_.erase(event) == 0) {
    throw RuntimeError("destroy_event: unknown event handle " + pointer_text(event) +
                       " (not created by this runtime, or already destroyed)");
  }
}

void SimulatedRuntime::record_event(EventHandle event, StreamHandle stream) {
  check_not_forked("record_event");
  const EventPtr target = find_event(event, "record_event");
  const StreamPtr on = stream_for(stream, "record_event", StreamUse::kQueueOrWait);
  if (target->is_remote()) {
    throw RuntimeError("record_event: the event was opened from another process's handle; only the "
                       "process that created it records it here");
  }
  if (target->device() != on->device()) {
    throw RuntimeError("record_event: the event belongs to simulated device " +
                       std::to_string(target->device()) + " but the stream to device " +
                       std::to_string(on->device()) + "; as in CUDA they must match");
  }
  if (record_in_capture(event, on)) return;
  const std::uint64_t id = target->begin_record(on.get());
  try {
    on->enqueue([target, id] { target->complete(id); });
  } catch (...) {
    target->complete(id);  // the stream was destroyed meanwhile: leave no record pending forever
    throw;
  }
}

bool SimulatedRuntime::query_event(EventHandle event) {
  check_not_forked("query_event");
  const EventPtr target = find_event(event, "query_event");
  refuse_captured_event(event, "query_event");
  return target->is_complete(target->latest_record());
}

void SimulatedRuntime::synchronize_event(EventHandle event) {
  check_not_forked("synchronize_event");
  const EventPtr target = find_event(event, "synchronize_event");
  refuse_captured_event(event, "synchronize_event");
  const std::uint64_t id = target->latest_record();
  const SimulatedStream* self = SimulatedStream::current();
  if (self != nullptr && target->pending_on(id, self)) {
    throw RuntimeError("synchronize_event: a work item waited for an event queued after it "
                       "on its own stream: that would never finish");
  }
  target->wait(id);
}

void SimulatedRuntime::stream_wait_event(StreamHandle stream, EventHandle event) {
  check_not_forked("stream_wait_event");
  const StreamPtr waiter = stream_for(stream, "stream_wait_event", StreamUse::kQueueOrWait);
  const EventPtr target = find_event(event, "stream_wait_event");
  if (wait_in_capture(waiter, event)) return;
  // The wait is for the record current now, whose marker is already queued, so waits
  // can never form a cycle. An event never recorded is complete: nothing to wait for.
  const std::uint64_t id = target->latest_record();
  if (id == 0) return;
  waiter->enqueue([target, id] { target->wait(id); });
}

float SimulatedRuntime::elapsed_ms(EventHandle start, EventHandle end) {
  const EventPtr first = find_event(start, "elapsed_ms");
  const EventPtr second = find_event(end, "elapsed_ms");
  if (first->device() != second->device()) {
    throw RuntimeError("elapsed_ms: the start event belongs to simulated device " +
                       std::to_string(first->device()) + " and the end event to device " +
                       std::to_string(second->device()) + "; as in CUDA they must match");
  }
  const auto elapsed = second->completion_time("end") - first->completion_time("start");
  return std::chrono::duration<float, std::milli>(elapsed).count();
}

}  // namespace torch_core
