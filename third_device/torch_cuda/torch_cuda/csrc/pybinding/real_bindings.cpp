// _CUDAC's real-variant functions: cudart queries made directly (no backend), and the
// elementwise kernel's round trip through a GPU.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/kernels/device_smoke.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_check.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_device_runtime.h"
#include "third_device/torch_cuda/torch_cuda/csrc/pybinding/variant_bindings.h"
#include "torch_core/csrc/device/python_bindings.h"

namespace py = pybind11;

namespace torch_cuda {

namespace {

py::dict device_properties(int device) { return torch_core::properties_dict(CudaRuntime().properties(device)); }

}  // namespace

void bind_variant(py::module_& m) {
  py::register_exception<CudaError>(m, "CudaError", PyExc_RuntimeError);
  m.def("device_count", [] { return CudaRuntime().device_count(); },
        "Number of CUDA devices; 0 when there is no GPU or no driver.");
  m.def("unavailable_reason", [] { return CudaRuntime().unavailable_reason(); },
        "Why device_count() is 0; empty when devices exist.");
  m.def("get_device_properties", &device_properties, py::arg("device"));
  m.def("device_add_round_trip", &device_add_round_trip, py::arg("device"), py::arg("n"),
        "Runs the elementwise add kernel on `device`; returns the max abs error vs. the host.");
}

}  // namespace torch_cuda
