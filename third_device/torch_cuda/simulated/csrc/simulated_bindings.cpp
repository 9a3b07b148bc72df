// _CUDAC's simulated-variant functions: device queries over the backend, the record of the
// NVIDIA library calls the simulated executors stood in for, the NCCL process group over
// the simulated communicator (torch_patches/nccl_process_group.py), and what every
// simulated device binds (_sleep: torch.cuda._sleep's counterpart; _config).
#include <cstdint>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "third_device/torch_cuda/simulated/csrc/library_calls.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_backend.h"
#include "third_device/torch_cuda/torch_cuda/csrc/pybinding/variant_bindings.h"
#include "torch_core/csrc/distributed/collective_bindings.h"
#include "torch_core/csrc/simulated/simulated_communicator.h"
#include "torch_core/csrc/simulated/simulated_device_bindings.h"

namespace py = pybind11;

namespace torch_cuda {

void bind_variant(py::module_& m) {
  m.def("device_count", [] { return backend().device_count(); });
  m.def("unavailable_reason", [] { return backend().runtime().unavailable_reason(); });
  m.def("_simulated_library_calls", &simulated::library_calls,
        "How many times each NVIDIA library call (cublasGemmEx, cublasLtMatmul, ...) was made, by name.");
  torch_core::bind_simulated_device_api(m, c10::DeviceType::CUDA);
  // torch.cuda.nccl.version(): the NCCL whose calls and semantics the simulated
  // communicator follows (2.32.3, issue 13's pinned nvidia-nccl-cu13), marked "simulated".
  m.def("_nccl_version", [] { return (std::int64_t{2} << 32) | (std::int64_t{32} << 16) | 3; });
  m.def("_nccl_version_suffix", [] { return py::bytes("simulated"); });
  // Bound on first use: its base class, c10d's Backend, exists once torch.distributed is
  // imported, which _CUDAC's import must not force.
  m.def(
      "_nccl_process_group_class",
      [m]() mutable -> py::object {
        if (!py::hasattr(m, "ProcessGroupNCCL")) {
          torch_core::distributed::bind_collective_backend(
              m, "ProcessGroupNCCL", "nccl", c10::DeviceType::CUDA,
              torch_core::simulated_device::communicator_factory(c10::DeviceType::CUDA));
        }
        return m.attr("ProcessGroupNCCL");
      },
      "_CUDAC.ProcessGroupNCCL (bound now if it was not): the NCCL process group over the simulated "
      "communicator. Needs torch.distributed imported.");
}

}  // namespace torch_cuda
