#include "torch_core/csrc/device/graph_bindings.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include <c10/util/Exception.h>
#include <pybind11/stl.h>
#include <torch/csrc/Generator.h>

#include "torch_core/csrc/device/backend.h"
#include "torch_core/csrc/device/device_graph.h"
#include "torch_core/csrc/runtime/allocator_snapshot.h"

namespace py = pybind11;

namespace torch_core {
namespace {

// torch.cuda's capture_error_mode names, as stock's CUDAGraph binding parses them.
at::GraphCaptureMode parse_capture_mode(const std::string& mode) {
  if (mode == "default") return at::GraphCaptureMode::Default;
  if (mode == "global") return at::GraphCaptureMode::Global;
  if (mode == "thread_local") return at::GraphCaptureMode::ThreadLocal;
  if (mode == "relaxed") return at::GraphCaptureMode::Relaxed;
  TORCH_CHECK(false, "Unknown capture error mode. Expected `global`, `thread_local`, or `relaxed`, got ",
              mode);
}

}  // namespace

void bind_graphs(py::module_& m, Backend& backend) {
  Backend* b = &backend;  // process-lifetime: captured by pointer

  py::class_<DeviceGraph>(m, "_Graph")
      .def(py::init([b](bool keep_graph) { return std::make_unique<DeviceGraph>(*b, keep_graph); }),
           py::arg("keep_graph") = false)
      .def("capture_begin",
           [](DeviceGraph& graph, std::optional<PoolId> pool, const std::string& capture_error_mode) {
             const at::GraphCaptureMode mode = parse_capture_mode(capture_error_mode);
             py::gil_scoped_release no_gil;
             graph.capture_begin(pool.value_or(PoolId{0, 0}), mode);
           },
           py::arg("pool") = std::nullopt, py::arg("capture_error_mode") = "global")
      .def("capture_end", &DeviceGraph::capture_end, py::call_guard<py::gil_scoped_release>())
      .def("instantiate", &DeviceGraph::instantiate, py::call_guard<py::gil_scoped_release>())
      .def("replay", &DeviceGraph::replay, py::call_guard<py::gil_scoped_release>())
      .def("reset", &DeviceGraph::reset, py::call_guard<py::gil_scoped_release>())
      .def("pool", [](const DeviceGraph& graph) { return PoolId(graph.pool()); })
      .def("register_generator_state",
           [](DeviceGraph& graph, const py::object& generator) {
             TORCH_CHECK(THPGenerator_Check(generator.ptr()),
                         "register_generator_state: expected a torch.Generator, got ",
                         py::str(py::type::of(generator)).cast<std::string>());
             graph.register_generator(reinterpret_cast<THPGenerator*>(generator.ptr())->cdata);
           },
           py::arg("generator"))
      .def("enable_debug_mode", &DeviceGraph::enable_debug_mode)
      .def("debug_dump", &DeviceGraph::debug_dump, py::arg("debug_path"))
      .def("raw_graph", [](const DeviceGraph& graph) {
        return reinterpret_cast<std::uintptr_t>(graph.raw_graph());
      })
      .def("raw_graph_exec", [](const DeviceGraph& graph) {
        return reinterpret_cast<std::uintptr_t>(graph.raw_graph_exec());
      });

  m.def("_graph_pool_handle", [] { return PoolId(new_graph_pool_id()); },
        "A new private pool id, for graphs that are to share memory.");
  m.def("_is_current_stream_capturing", [b] { return current_stream_capturing(b->device_type()); });
}

}  // namespace torch_core
