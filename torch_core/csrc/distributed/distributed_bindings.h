// torch.distributed on a backend's device, what its pybind11 module sets up: the
// _host_staging_backend function its ledger wraps gloo with, and DDP's timer for the
// device type.
#pragma once

#include <c10/core/DeviceType.h>
#include <pybind11/pybind11.h>

namespace torch_core {

void bind_distributed(pybind11::module_& m, c10::DeviceType device_type);

}  // namespace torch_core
