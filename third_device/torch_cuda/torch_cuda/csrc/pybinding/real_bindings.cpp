// _CUDAC's real-variant functions: cudart queries made directly (no backend), the
// elementwise kernel's round trip through a GPU, torch.cuda._sleep's spin kernel, and the
// NCCL process group over NCCL (torch_patches/nccl_process_group.py).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/kernels/device_smoke.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/kernels/spin.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_check.h"
#include "third_device/torch_cuda/torch_cuda/csrc/distributed/nccl_communicator.h"
#include "third_device/torch_cuda/torch_cuda/csrc/distributed/nccl_rendezvous.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_device_runtime.h"
#include "third_device/torch_cuda/torch_cuda/csrc/pybinding/nccl_bindings.h"
#include "third_device/torch_cuda/torch_cuda/csrc/pybinding/variant_bindings.h"
#include "torch_core/csrc/device/backend.h"
#include "torch_core/csrc/device/python_bindings.h"

namespace py = pybind11;

namespace torch_cuda {

namespace {

py::dict device_properties(int device) { return torch_core::properties_dict(CudaRuntime().properties(device)); }

// torch._C._cuda_sleep: spins `cycles` GPU clock cycles on the current stream.
void spin_on_current_stream(std::int64_t cycles) {
  torch_core::Backend& backend = torch_core::Backend::get(c10::DeviceType::CUDA);
  const torch_core::StreamHandle stream = backend.streams().current_handle(backend.current_device());
  launch_spin(cycles, static_cast<cudaStream_t>(stream));
}

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
  m.def("_spin", &spin_on_current_stream, py::arg("cycles"),
        "Queues a kernel that spins `cycles` GPU clock cycles on the current stream.");
  bind_nccl(m, distributed::nccl_communicator_factory(), distributed::nccl_version(), NCCL_SUFFIX);
}

}  // namespace torch_cuda
