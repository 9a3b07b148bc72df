// The Python functions only a simulated device has, bound on its backend's module beside
// torch_core::bind_device_api's: _sleep (torch.cuda._sleep's counterpart, for tests of
// stream ordering) and _config (the simulated runtime's settings).
#pragma once

#include <c10/core/DeviceType.h>
#include <pybind11/pybind11.h>

namespace torch_core {

void bind_simulated_device_api(pybind11::module_& m, c10::DeviceType device_type);

}  // namespace torch_core
