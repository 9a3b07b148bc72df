#include "torch_core/csrc/device/device_graph.h"

#include <cstdint>
#include <memory>
#include <mutex>

#include <c10/util/Exception.h>

#include "torch_core/csrc/device/backend.h"
#include "torch_core/csrc/device/philox_generator.h"
#include "torch_core/csrc/device/runtime_call.h"
#include "torch_core/csrc/runtime/current_device_scope.h"

namespace torch_core {
namespace {

std::atomic<c10::CaptureId_t> next_pool_uid{1};

CaptureMode capture_mode(at::GraphCaptureMode mode) {
  switch (mode) {
    case at::GraphCaptureMode::Default:  // stock CUDA's default, torch.cuda.graph's too
    case at::GraphCaptureMode::Global:
      return CaptureMode::kGlobal;
    case at::GraphCaptureMode::ThreadLocal:
      return CaptureMode::kThreadLocal;
    case at::GraphCaptureMode::Relaxed:
      return CaptureMode::kRelaxed;
  }
  return CaptureMode::kGlobal;
}

}  // namespace

std::atomic<int> DeviceGraph::captures_underway_{0};

c10::MempoolId_t new_graph_pool_id() { return {0, next_pool_uid.fetch_add(1)}; }
c10::MempoolId_t new_internal_pool_id() { return {next_pool_uid.fetch_add(1), 0}; }

DeviceGraph::DeviceGraph(Backend& backend, bool keep_graph) : backend_(backend), keep_graph_(keep_graph) {}

DeviceGraph::~DeviceGraph() {
  try {
    reset();
  } catch (...) {
    // A destructor must not throw; a runtime already shut down has nothing to give back.
  }
}

void DeviceGraph::capture_begin(c10::MempoolId_t pool, at::GraphCaptureMode mode) {
  TORCH_CHECK(!has_graph_ && !capturing_,
              "This CUDAGraph instance already owns a captured graph. To capture a new graph, "
              "create a new instance.");
  const c10::DeviceType type = backend_.device_type();
  const c10::DeviceIndex device = backend_.current_device();
  const c10::Stream stream = backend_.streams().current_stream(device);
  TORCH_CHECK(stream != backend_.streams().default_stream(device),
              "CUDA graphs must be captured on a non-default stream. (However, after capture, "
              "it's ok to replay them on the default stream.)");
  DeviceRuntime& runtime = backend_.runtime();
  const StreamHandle handle = backend_.streams().handle(stream);
  const c10::MempoolId_t pool_id =
      pool.first != 0 || pool.second != 0 ? pool : new_internal_pool_id();

  add_generator(backend_.default_generator(device));
  begin_generator_captures();
  try {
    runtime_call(type, [&] { runtime.begin_capture(handle, capture_mode(mode)); });
  } catch (...) {
    release_generators();
    throw;
  }
  const std::uint64_t id = runtime_call(type, [&] { return runtime.capture_id(handle); });
  try {
    backend_.allocator().core().begin_allocate_to_pool(
        device, pool_id, [&runtime, id](StreamHandle s) { return runtime.capture_id(s) == id; });
  } catch (...) {
    release_generators();
    runtime.destroy_graph(runtime.end_capture(handle));
    throw;
  }
  device_ = device;
  capture_stream_ = handle;
  pool_ = pool_id;
  holds_pool_ = true;
  capturing_ = true;
  captures_underway_.fetch_add(1);
}

void DeviceGraph::capture_end() {
  TORCH_CHECK(capturing_, "Called CUDAGraph::capture_end without a preceding capture_begin.");
  const c10::DeviceType type = backend_.device_type();
  DeviceRuntime& runtime = backend_.runtime();
  const CurrentDeviceScope on_device(runtime, device_);
  TORCH_CHECK(backend_.streams().current_handle(device_) == capture_stream_,
              "Capture must end on the same stream it began on.");
  capturing_ = false;
  captures_underway_.fetch_sub(1);
  end_generator_captures();
  backend_.allocator().core().end_allocate_to_pool(device_, pool_);
  GraphHandle graph = nullptr;
  try {
    graph = runtime_call(type, [&] { return runtime.end_capture(capture_stream_); });
  } catch (...) {
    release_pool_once();  // the failed capture's memory is nobody's
    throw;
  }
  TORCH_CHECK(graph != nullptr, "Invalid capture.");
  graph_ = graph;
  has_graph_ = true;
  if (keep_graph_) return;
  instantiate();
  if (!debug_) {  // debug_dump() needs the captured form
    runtime_call(type, [&] { runtime.destroy_graph(graph_); });
    graph_ = nullptr;
  }
}

void DeviceGraph::instantiate() {
  TORCH_CHECK(has_graph_, "capture_end() must have been called before calling instantiate");
  TORCH_CHECK(graph_ != nullptr,
              "instantiate() is intended to be called by the user only when keep_graph=true");
  DeviceRuntime& runtime = backend_.runtime();
  runtime_call(backend_.device_type(), [&] {
    if (exec_ != nullptr) runtime.destroy_graph_exec(exec_);
    exec_ = nullptr;
    exec_ = runtime.instantiate_graph(graph_);
  });
}

void DeviceGraph::replay() {
  TORCH_CHECK(has_graph_, "Called CUDAGraph::replay without a preceding successful capture.");
  if (exec_ == nullptr) instantiate();
  DeviceRuntime& runtime = backend_.runtime();
  const CurrentDeviceScope on_device(runtime, device_);
  const StreamHandle stream = backend_.streams().current_handle(device_);
  for (const CapturedGenerator& entry : generators_) {  // what this replay draws, where its kernels read it
    if (entry.increment == 0) continue;
    const std::lock_guard<std::mutex> lock(entry.philox->mutex_);
    entry.philox->replay_prologue(entry.increment);
  }
  runtime_call(backend_.device_type(), [&] { runtime.launch_graph(exec_, stream); });
}

void DeviceGraph::register_generator(const at::Generator& generator) {
  TORCH_CHECK(!capturing_, "register_generator_state: register generators before capture_begin()");
  TORCH_CHECK(generator.device().type() == backend_.device_type(), "register_generator_state: expected a ",
              c10::DeviceTypeName(backend_.device_type()), " generator, got one of device ", generator.device());
  TORCH_CHECK(dynamic_cast<PhiloxGenerator*>(generator.unsafeGetGeneratorImpl()) != nullptr,
              "register_generator_state: the generator is not one of ", c10::DeviceTypeName(backend_.device_type()),
              "'s backend");
  add_generator(generator);
}

void DeviceGraph::add_generator(const at::Generator& generator) {
  auto* philox = static_cast<PhiloxGenerator*>(generator.unsafeGetGeneratorImpl());
  for (const CapturedGenerator& entry : generators_) {
    if (entry.philox == philox) return;
  }
  generators_.push_back({generator, philox});
}

void DeviceGraph::begin_generator_captures() {
  for (CapturedGenerator& entry : generators_) {
    try {
      const std::lock_guard<std::mutex> lock(entry.philox->mutex_);
      entry.philox->capture_prologue();
    } catch (...) {
      release_generators();
      throw;
    }
    entry.in_graph = true;
    entry.capturing = true;
  }
}

void DeviceGraph::end_generator_captures() {
  for (CapturedGenerator& entry : generators_) {
    if (!entry.capturing) continue;
    const std::lock_guard<std::mutex> lock(entry.philox->mutex_);
    entry.increment = entry.philox->capture_epilogue();
    entry.capturing = false;
  }
}

void DeviceGraph::release_generators() {
  for (CapturedGenerator& entry : generators_) {
    const std::lock_guard<std::mutex> lock(entry.philox->mutex_);
    if (entry.capturing) entry.philox->capture_epilogue();
    if (entry.in_graph) entry.philox->release_graph();
    entry.capturing = false;
    entry.in_graph = false;
    entry.increment = 0;
  }
}

void DeviceGraph::reset() {
  DeviceRuntime& runtime = backend_.runtime();
  if (capturing_) {  // abandoned mid-capture: end it, keeping nothing
    capturing_ = false;
    captures_underway_.fetch_sub(1);
    end_generator_captures();
    backend_.allocator().core().end_allocate_to_pool(device_, pool_);
    try {
      runtime.destroy_graph(runtime.end_capture(capture_stream_));
    } catch (const RuntimeError&) {
      // An invalidated capture ends with its error, and nothing to destroy.
    }
  }
  runtime_call(backend_.device_type(), [&] {
    if (exec_ != nullptr) runtime.destroy_graph_exec(exec_);
    exec_ = nullptr;
    if (graph_ != nullptr) runtime.destroy_graph(graph_);
    graph_ = nullptr;
  });
  has_graph_ = false;
  release_generators();  // their device words go with the last graph that reads them
  generators_.clear();
  release_pool_once();
}

void DeviceGraph::release_pool_once() {
  if (!holds_pool_) return;
  holds_pool_ = false;
  backend_.allocator().core().release_pool(device_, pool_);
}

c10::MempoolId_t DeviceGraph::pool() const {
  TORCH_CHECK(has_graph_ || capturing_,
              "Called CUDAGraph::pool() without a preceding successful capture.");
  return pool_;
}

void DeviceGraph::enable_debug_mode() { debug_ = true; }

void DeviceGraph::debug_dump(const std::string& path) {
  if (!debug_) {
    TORCH_WARN("CUDA Graphs debug not enabled, set with [graph].enable_debug_mode()");
    return;
  }
  TORCH_CHECK(graph_ != nullptr, "debug_dump: there is no captured graph (capture one first)");
  runtime_call(backend_.device_type(), [&] { backend_.runtime().dump_graph(graph_, path); });
}

GraphHandle DeviceGraph::raw_graph() const {
  TORCH_CHECK(graph_ != nullptr,
              "You cannot access the raw cudaGraph_t instance unless CUDAGraph was initialized "
              "with keep_graph=true (or debug mode is on) and capture_end() was called");
  return graph_;
}

GraphExecHandle DeviceGraph::raw_graph_exec() const {
  TORCH_CHECK(exec_ != nullptr,
              "You cannot access the raw cudaGraphExec_t instance until instantiate() has been "
              "called");
  return exec_;
}

bool current_stream_capturing(c10::DeviceType device_type, c10::DeviceIndex device) {
  if (!DeviceGraph::any_capture_underway()) return false;
  Backend& backend = Backend::get(device_type);
  const StreamHandle stream =
      backend.streams().current_handle(device < 0 ? backend.current_device() : device);
  return runtime_call(device_type, [&] { return backend.runtime().capture_id(stream) != 0; });
}

void register_graph_impl(Backend& backend) {
  Backend* b = &backend;  // process-lifetime
  at::GraphImplRegistry()->Register(
      c10::DeviceTypeName(backend.device_type(), /*lower_case=*/false),
      [b](at::GraphImplArgs args) -> std::unique_ptr<at::GraphImplInterface> {
        return std::make_unique<DeviceGraph>(*b, args.keep_graph);
      });
}

}  // namespace torch_core
