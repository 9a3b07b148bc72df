#include "third_device/torch_cuda/torch_cuda/csrc/pybinding/nccl_bindings.h"

#include <utility>

#include "torch_core/csrc/distributed/collective_bindings.h"

namespace py = pybind11;

namespace torch_cuda {

void bind_nccl(py::module_& m, torch_core::distributed::CommunicatorFactory factory, long long version,
               const std::string& suffix) {
  m.def("_nccl_version", [version] { return version; });
  m.def("_nccl_version_suffix", [suffix] { return py::bytes(suffix); });
  m.def(
      "_nccl_process_group_class",
      [m, factory = std::move(factory)]() mutable -> py::object {
        if (!py::hasattr(m, "ProcessGroupNCCL")) {
          torch_core::distributed::bind_collective_backend(m, "ProcessGroupNCCL", "nccl", c10::DeviceType::CUDA,
                                                           factory);
        }
        return m.attr("ProcessGroupNCCL");
      },
      "_CUDAC.ProcessGroupNCCL, bound now if it was not (its base class, c10d's Backend, exists once "
      "torch.distributed is imported, which _CUDAC's import must not force).");
}

}  // namespace torch_cuda
