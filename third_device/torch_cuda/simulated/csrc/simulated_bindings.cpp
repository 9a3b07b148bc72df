// _CUDAC's simulated-variant functions: device queries over the backend, the record of the
// NVIDIA library calls the simulated executors stood in for, and what every simulated
// device binds (_sleep: torch.cuda._sleep's counterpart; _config).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "third_device/torch_cuda/simulated/csrc/library_calls.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_backend.h"
#include "third_device/torch_cuda/torch_cuda/csrc/pybinding/variant_bindings.h"
#include "torch_core/csrc/simulated/simulated_device_bindings.h"

namespace py = pybind11;

namespace torch_cuda {

void bind_variant(py::module_& m) {
  m.def("device_count", [] { return backend().device_count(); });
  m.def("unavailable_reason", [] { return backend().runtime().unavailable_reason(); });
  m.def("_simulated_library_calls", &simulated::library_calls,
        "How many times each NVIDIA library call (cublasGemmEx, cublasLtMatmul, ...) was made, by name.");
  torch_core::bind_simulated_device_api(m, c10::DeviceType::CUDA);
}

}  // namespace torch_cuda
