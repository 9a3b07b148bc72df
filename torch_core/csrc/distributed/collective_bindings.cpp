#include "torch_core/csrc/distributed/collective_bindings.h"

#include <chrono>
#include <cstdint>
#include <utility>

#include <pybind11/chrono.h>
#include <torch/csrc/utils/pybind.h>

namespace torch_core::distributed {

namespace py = pybind11;

void bind_collective_backend(py::module_& m, const char* class_name, const std::string& backend_name,
                             c10::DeviceType device_type, CommunicatorFactory factory) {
  using Class = py::class_<CollectiveBackend, c10d::Backend, c10::intrusive_ptr<CollectiveBackend>>;
  const std::string doc = "torch.distributed's " + backend_name + " process group for " +
                          c10::DeviceTypeName(device_type, /*lower_case=*/true) +
                          " tensors: one communicator and communication stream per device.";
  Class cls(m, class_name, doc.c_str());
  py::class_<CollectiveOptions, c10d::Backend::Options, c10::intrusive_ptr<CollectiveOptions>>(
      cls, "Options", "The process group's options: a high-priority communication stream, and the base options.")
      .def(py::init([backend_name](bool is_high_priority_stream) {
             return c10::make_intrusive<CollectiveOptions>(backend_name, is_high_priority_stream);
           }),
           py::arg("is_high_priority_stream") = false)
      .def_readwrite("is_high_priority_stream", &CollectiveOptions::is_high_priority_stream);
  cls.def(py::init([device_type, factory](const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
                                          c10::intrusive_ptr<CollectiveOptions> options) {
            return c10::make_intrusive<CollectiveBackend>(store, rank, size, std::move(options), device_type,
                                                          factory);
          }),
          py::arg("store"), py::arg("rank"), py::arg("size"), py::arg("options"),
          py::call_guard<py::gil_scoped_release>())
      .def(py::init([device_type, factory, backend_name](const c10::intrusive_ptr<c10d::Store>& store, int rank,
                                                         int size, std::chrono::milliseconds timeout) {
             auto options = c10::make_intrusive<CollectiveOptions>(backend_name);
             options->timeout = timeout;
             return c10::make_intrusive<CollectiveBackend>(store, rank, size, std::move(options), device_type,
                                                           factory);
           }),
           py::arg("store"), py::arg("rank"), py::arg("size"),
           py::arg("timeout") = std::chrono::milliseconds(std::chrono::minutes(10)),
           py::call_guard<py::gil_scoped_release>())
      .def_property_readonly("options", &CollectiveBackend::options)
      .def_property_readonly(
          "uid", [](const CollectiveBackend& self) { return reinterpret_cast<std::uintptr_t>(&self); },
          "An id of this process group object, unique in the process.")
      .def(
          "comm_split_count", [](const CollectiveBackend&) { return 0; },
          "How many communicators were split from this group's: none, it does not split.");
}

}  // namespace torch_core::distributed
