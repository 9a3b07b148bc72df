// _CUDAC's simulated-variant functions: device queries over the backend, the record of the
// NVIDIA library calls the simulated executors stood in for, the NCCL process group over
// the simulated communicator (torch_patches/nccl_process_group.py), and what every
// simulated device binds (_sleep: torch.cuda._sleep's counterpart; _config).
#include <cstdint>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "third_device/torch_cuda/simulated/csrc/library_calls.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_backend.h"
#include "third_device/torch_cuda/torch_cuda/csrc/pybinding/nccl_bindings.h"
#include "third_device/torch_cuda/torch_cuda/csrc/pybinding/variant_bindings.h"
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
  // The NCCL whose calls and semantics the simulated communicator follows (2.32.3, the
  // real variant's pinned nvidia-nccl-cu13), marked "simulated" in torch.cuda.nccl.version().
  bind_nccl(m, torch_core::simulated_device::communicator_factory(c10::DeviceType::CUDA),
            (std::int64_t{2} << 32) | (std::int64_t{32} << 16) | 3, "simulated");
}

}  // namespace torch_cuda
