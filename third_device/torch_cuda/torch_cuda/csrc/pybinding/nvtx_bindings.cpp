#include "third_device/torch_cuda/torch_cuda/csrc/pybinding/nvtx_bindings.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include <nvtx3/nvToolsExt.h>
#include <pybind11/stl.h>

#include "torch_core/csrc/device/profiler_stubs.h"

namespace py = pybind11;

namespace torch_cuda {
namespace {

// A range that a stream starts and later ends; owned by the stream's host functions.
struct DeviceRange {
  std::string message;
  nvtxRangeId_t id = 0;
};

void start_device_range(void* data) {
  auto* range = static_cast<DeviceRange*>(data);
  range->id = nvtxRangeStartA(range->message.c_str());
}

void end_device_range(void* data) {
  std::unique_ptr<DeviceRange> range(static_cast<DeviceRange*>(data));
  nvtxRangeEnd(range->id);
}

// Stream 0 is CUDA's legacy default stream: the current device's default stream.
torch_core::StreamHandle stream_of(torch_core::Backend& backend, std::intptr_t stream) {
  torch_core::DeviceRuntime& runtime = backend.initialize();
  return stream == 0 ? runtime.default_stream(runtime.current_device())
                     : reinterpret_cast<torch_core::StreamHandle>(stream);
}

}  // namespace

void bind_nvtx(py::module_& m, torch_core::Backend& backend) {
  // torch.autograd.profiler.emit_nvtx: the profiler's ranges around each operator.
  torch_core::ProfilerAnnotations annotations;
  annotations.mark = [](const char* message) { nvtxMarkA(message); };
  annotations.range_push = [](const char* message) { nvtxRangePushA(message); };
  annotations.range_pop = [] { nvtxRangePop(); };
  torch_core::set_profiler_annotations(backend.device_type(), annotations);

  py::module_ nvtx = m.def_submodule("_nvtx", "NVTX3 ranges and marks (torch._C._nvtx)");
  nvtx.def("rangePushA", [](const std::string& message) { return nvtxRangePushA(message.c_str()); },
           py::arg("message"));
  nvtx.def("rangePop", [] { return nvtxRangePop(); });
  nvtx.def("rangeStartA",
           [](const std::string& message) { return nvtxRangeStartA(message.c_str()); },
           py::arg("message"));
  nvtx.def("rangeEnd", [](nvtxRangeId_t id) { nvtxRangeEnd(id); }, py::arg("range_id"));
  nvtx.def("markA", [](const std::string& message) { nvtxMarkA(message.c_str()); },
           py::arg("message"));
  nvtx.def(
      "deviceRangeStart",
      [&backend](const std::string& message, std::intptr_t stream) {
        auto range = std::make_unique<DeviceRange>(DeviceRange{message});
        backend.runtime().launch_host_func(stream_of(backend, stream), start_device_range,
                                           range.get());
        return reinterpret_cast<std::intptr_t>(range.release());
      },
      py::arg("message"), py::arg("stream"),
      "Starts a range when `stream` (a raw handle, 0: the default stream) reaches this point; "
      "returns the handle deviceRangeEnd takes.");
  nvtx.def(
      "deviceRangeEnd",
      [&backend](std::intptr_t handle, std::intptr_t stream) {
        TORCH_CHECK(handle != 0, "deviceRangeEnd: the handle is not one deviceRangeStart returned");
        backend.runtime().launch_host_func(stream_of(backend, stream), end_device_range,
                                           reinterpret_cast<void*>(handle));
      },
      py::arg("range_handle"), py::arg("stream"));
}

}  // namespace torch_cuda
