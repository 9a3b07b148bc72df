#include "torch_core/csrc/distributed/distributed_bindings.h"

#include <utility>

#include <torch/csrc/utils/pybind.h>

#include "torch_core/csrc/distributed/device_timer.h"
#include "torch_core/csrc/distributed/host_staging_backend.h"

namespace torch_core {

void bind_distributed(pybind11::module_& m, c10::DeviceType device_type) {
  register_ddp_timer(device_type);
  m.def(
      "_host_staging_backend",
      [](c10::intrusive_ptr<c10d::Backend> host_backend) -> c10::intrusive_ptr<c10d::Backend> {
        TORCH_CHECK(host_backend, "_host_staging_backend: requires a backend, got None");
        return c10::make_intrusive<HostStagingBackend>(std::move(host_backend));
      },
      pybind11::arg("host_backend"),
      "host_backend (a c10d Backend such as ProcessGroupGloo) for device tensors: allreduce, "
      "reduce_scatter, send and recv run on pinned host copies, everything else is forwarded.");
}

}  // namespace torch_core
