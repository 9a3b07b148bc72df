// SimulatedRuntime's stream capture and graphs (simulated_capture.h has the model).
#include <fstream>
#include <memory>
#include <string>
#include <utility>

#include "torch_core/csrc/runtime/pointer_text.h"
#include "torch_core/csrc/runtime/simulated_capture.h"
#include "torch_core/csrc/runtime/simulated_runtime.h"
#include "torch_core/csrc/runtime/simulated_stream.h"

namespace torch_core {
namespace {

// cudart's text for cudaErrorStreamCaptureUnsupported, which stock torch users know.
constexpr const char* kRefused = ": operation not permitted when stream is capturing";

}  // namespace

// --- Queueing with capture -------------------------------------------------------------

SimulatedRuntime::CapturePtr SimulatedRuntime::capture_of(const SimulatedStream* stream) const {
  if (captures_underway_.load(std::memory_order_acquire) == 0) return nullptr;
  std::lock_guard<std::mutex> lock(captures_mutex_);
  const auto it = captures_.find(stream);
  return it == captures_.end() ? nullptr : it->second;
}

void SimulatedRuntime::submit(const StreamPtr& target, std::function<void()> work, const char* call) {
  if (const CapturePtr capture = capture_of(target.get())) {
    capture->append(target.get(), std::move(work), call);
    return;
  }
  target->enqueue(std::move(work));
}

void SimulatedRuntime::refuse_on_capturing_stream(const SimulatedStream* stream, const char* call) {
  const CapturePtr capture = capture_of(stream);
  if (capture == nullptr) return;
  const std::string reason = std::string(call) + " on a capturing stream";
  capture->invalidate(reason);
  throw RuntimeError(std::string(call) + kRefused + " (" + reason +
                     " would wait for work that is recorded, not run; CUDA invalidates the "
                     "capture. Synchronise before capture_begin or after capture_end)");
}

void SimulatedRuntime::refuse_unsafe_call(int device, const char* call) {
  if (captures_underway_.load(std::memory_order_acquire) == 0) return;
  CapturePtr refusing;
  {
    std::lock_guard<std::mutex> lock(captures_mutex_);
    for (const auto& entry : captures_) {
      const CapturePtr& capture = entry.second;
      if ((device < 0 || capture->device() == device) &&
          capture->forbids_unsafe_calls_from_this_thread()) {
        refusing = capture;
        break;
      }
    }
  }
  if (refusing == nullptr) return;
  refusing->invalidate(std::string(call) + " during capture");
  throw RuntimeError(std::string(call) + kRefused + " (it synchronises implicitly, which a "
                     "capture on simulated device " + std::to_string(refusing->device()) +
                     " in global or thread-local mode forbids; CUDA invalidates the capture. "
                     "Make the call outside the capture, or capture with "
                     "capture_error_mode=\"relaxed\")");
}

// --- Events in a capture ---------------------------------------------------------------

bool SimulatedRuntime::record_in_capture(EventHandle event, const StreamPtr& on) {
  // Records made in a capture are dropped when it ends, so none exist without one.
  if (captures_underway_.load(std::memory_order_acquire) == 0) return false;
  const CapturePtr capture = capture_of(on.get());
  std::lock_guard<std::mutex> lock(captures_mutex_);
  if (capture == nullptr) {
    captured_records_.erase(event);  // a record outside capture replaces a captured one
    return false;
  }
  // As in CUDA, a record in a capture is a node of the graph, not a marker on the stream.
  captured_records_[event] = CapturedRecord{capture, on.get(), capture->mark(on.get(), "record_event")};
  return true;
}

bool SimulatedRuntime::wait_in_capture(const StreamPtr& waiter, EventHandle event) {
  if (captures_underway_.load(std::memory_order_acquire) == 0) return false;
  CapturePtr capture;
  CapturedRecord record{};
  {
    std::lock_guard<std::mutex> lock(captures_mutex_);
    const auto it = captured_records_.find(event);
    if (it != captured_records_.end()) {
      record = it->second;
      capture = record.capture.lock();
    }
    if (capture == nullptr) {
      // An event recorded outside any capture: a capturing waiter has nothing to record
      // (the graph cannot wait on work outside it), any other waiter waits as usual.
      return captures_.count(waiter.get()) != 0;
    }
    const auto joined = captures_.emplace(waiter.get(), capture);
    if (!joined.second && joined.first->second != capture) {
      throw RuntimeError("stream_wait_event: the stream takes part in another capture; CUDA "
                         "refuses to merge two independent capture sequences");
    }
  }
  capture->join(waiter.get(), record.stream, record.mark);
  return true;
}

void SimulatedRuntime::refuse_captured_event(EventHandle event, const char* call) {
  if (captures_underway_.load(std::memory_order_acquire) == 0) return;
  CapturePtr capture;
  {
    std::lock_guard<std::mutex> lock(captures_mutex_);
    const auto it = captured_records_.find(event);
    if (it != captured_records_.end()) capture = it->second.capture.lock();
  }
  if (capture == nullptr) return;
  capture->invalidate(std::string(call) + " of an event recorded in the capture");
  throw RuntimeError(std::string(call) + kRefused + " (the event was recorded in a capture that "
                     "is still underway: it marks a point of the graph, not of the stream)");
}

// --- Capture -------------------------------------------------------------------------

void SimulatedRuntime::begin_capture(StreamHandle stream, CaptureMode mode) {
  check_not_forked("begin_capture");
  const StreamPtr target = stream_for(stream, "begin_capture", StreamUse::kQueueOrWait);
  if (devices_[static_cast<std::size_t>(target->device())].default_stream == target) {
    throw RuntimeError("begin_capture: operation not permitted on the default stream (CUDA "
                       "cannot capture the legacy default stream); capture on a stream you "
                       "created");
  }
  std::lock_guard<std::mutex> lock(captures_mutex_);
  if (captures_.count(target.get()) != 0) {
    throw RuntimeError("begin_capture: the stream is already capturing (cudaErrorIllegalState); "
                       "end that capture first");
  }
  auto capture = std::make_shared<SimulatedCapture>(next_capture_id_++, target.get(), target->device(), mode);
  captures_.emplace(target.get(), std::move(capture));
  captures_underway_.fetch_add(1, std::memory_order_acq_rel);
}

GraphHandle SimulatedRuntime::end_capture(StreamHandle stream) {
  const StreamPtr target = stream_for(stream, "end_capture", StreamUse::kQueueOrWait);
  CapturePtr capture;
  {
    std::lock_guard<std::mutex> lock(captures_mutex_);
    const auto it = captures_.find(target.get());
    if (it == captures_.end()) {
      throw RuntimeError("end_capture: the stream is not capturing (cudaErrorIllegalState)");
    }
    capture = it->second;
    if (capture->origin() != target.get()) {
      throw RuntimeError("end_capture: the capture was not initiated in this stream "
                         "(cudaErrorStreamCaptureUnmatched); end it on the stream that began it");
    }
    for (const SimulatedStream* member : capture->members()) captures_.erase(member);
    for (auto record = captured_records_.begin(); record != captured_records_.end();) {
      record = record->second.capture.lock() == capture ? captured_records_.erase(record)
                                                        : std::next(record);
    }
    captures_underway_.fetch_sub(1, std::memory_order_acq_rel);
  }
  auto graph = std::make_shared<SimulatedGraph>(
      SimulatedGraph{capture->device(), std::make_shared<const CapturedWork>(capture->finish())});
  std::lock_guard<std::mutex> lock(captures_mutex_);
  graphs_.emplace(graph.get(), graph);
  return graph.get();
}

std::uint64_t SimulatedRuntime::capture_id(StreamHandle stream) {
  const StreamPtr target = find_stream(stream, "capture_id");
  const CapturePtr capture = capture_of(target.get());
  return capture == nullptr ? 0 : capture->id();
}

// --- Graphs --------------------------------------------------------------------------

std::shared_ptr<SimulatedGraph> SimulatedRuntime::find_graph(void* handle, bool exec,
                                                            const char* call) const {
  std::lock_guard<std::mutex> lock(captures_mutex_);
  const auto& graphs = exec ? graph_execs_ : graphs_;
  const auto it = graphs.find(handle);
  if (it == graphs.end()) {
    throw RuntimeError(std::string(call) + ": unknown " + (exec ? "instantiated graph" : "graph") +
                       " handle " + pointer_text(handle) +
                       " (not made by this runtime, or already destroyed)");
  }
  return it->second;
}

GraphExecHandle SimulatedRuntime::instantiate_graph(GraphHandle graph) {
  const auto captured = find_graph(graph, /*exec=*/false, "instantiate_graph");
  auto exec = std::make_shared<SimulatedGraph>(*captured);
  std::lock_guard<std::mutex> lock(captures_mutex_);
  graph_execs_.emplace(exec.get(), exec);
  return exec.get();
}

void SimulatedRuntime::launch_graph(GraphExecHandle graph, StreamHandle stream) {
  check_not_forked("launch_graph");
  const auto exec = find_graph(graph, /*exec=*/true, "launch_graph");
  const StreamPtr target = stream_for(stream, "launch_graph", StreamUse::kLaunch);
  if (target->device() != exec->device) {
    throw RuntimeError("launch_graph: the graph was captured on simulated device " +
                       std::to_string(exec->device) + " and cannot run on a stream of device " +
                       std::to_string(target->device()));
  }
  // One item: the graph's work runs in capture order, and a failing item ends the run as
  // a device fault would.
  submit(target, [work = exec->work] { for (const auto& item : *work) item(); }, "launch_graph");
}

void SimulatedRuntime::destroy_graph(GraphHandle graph) {
  std::lock_guard<std::mutex> lock(captures_mutex_);
  if (graphs_.erase(graph) == 0) {
    throw RuntimeError("destroy_graph: unknown graph handle " + pointer_text(graph));
  }
}

void SimulatedRuntime::destroy_graph_exec(GraphExecHandle graph) {
  // Launches already queued hold the work: as in CUDA, a graph may be destroyed while
  // its launches are pending.
  std::lock_guard<std::mutex> lock(captures_mutex_);
  if (graph_execs_.erase(graph) == 0) {
    throw RuntimeError("destroy_graph_exec: unknown instantiated graph handle " + pointer_text(graph));
  }
}

void SimulatedRuntime::dump_graph(GraphHandle graph, const std::string& path) {
  const auto captured = find_graph(graph, /*exec=*/false, "dump_graph");
  std::ofstream out(path);
  if (!out) throw RuntimeError("dump_graph: cannot write " + path);
  out << "digraph simulated_graph {\n  label=\"simulated device " << captured->device << ": "
      << captured->work->size() << " work items, run in order\";\n";
  for (std::size_t item = 0; item < captured->work->size(); ++item) {
    out << "  item" << item << " [label=\"work item " << item << "\"];\n";
    if (item > 0) out << "  item" << item - 1 << " -> item" << item << ";\n";
  }
  out << "}\n";
}

}  // namespace torch_core
