// _SIMC: the Python module of the simulated device. Loading it registers the backend on
// PrivateUse1 (guard, allocators, hooks; the operators register as the library loads);
// torch_core binds the device-module functions and a simulated device's own.
#include <pybind11/pybind11.h>

#include "third_device/torch_sim/csrc/sim_backend.h"
#include "torch_core/csrc/device/python_bindings.h"
#include "torch_core/csrc/simulated/simulated_device_bindings.h"

PYBIND11_MODULE(_SIMC, m) {
  m.doc() = "The simulated PrivateUse1 device (host memory, one worker thread per stream)";
  torch_sim::register_backend();
  torch_core::bind_device_api(m, torch_sim::kDeviceType);
  torch_core::bind_simulated_device_api(m, torch_sim::kDeviceType);
  m.attr("fallback_policy_env") = torch_sim::kFallbackPolicyEnv;
  m.attr("allocator_config_env") = torch_sim::kAllocatorConfigEnv;
}
