// _SIMC: the Python module of the simulated device. Loading it registers the backend on
// PrivateUse1 (guard, allocators, hooks; the operators register as the library loads);
// torch_core binds the device-module functions, and this file adds what only the
// simulator has.
#include <chrono>
#include <thread>

#include <c10/core/DeviceType.h>
#include <pybind11/pybind11.h>

#include "third_device/torch_sim/csrc/sim_backend.h"
#include "torch_core/device/python_bindings.h"
#include "torch_core/runtime/simulated_config.h"

namespace py = pybind11;

PYBIND11_MODULE(_SIMC, m) {
  m.doc() = "The simulated PrivateUse1 device (host memory, one worker thread per stream)";
  torch_sim::register_backend();
  torch_core::bind_device_api(m, c10::DeviceType::PrivateUse1);

  m.def("_sleep", [](double milliseconds) {
    torch_core::Backend& backend = torch_sim::register_backend();
    const torch_core::StreamHandle stream = backend.streams().current_handle(backend.current_device());
    const auto duration = std::chrono::duration<double, std::milli>(milliseconds);
    torch_sim::launch(stream, [duration] { std::this_thread::sleep_for(duration); });
  }, py::arg("milliseconds"),
        "Queues a work item that takes `milliseconds` on the current stream (torch.cuda._sleep's "
        "counterpart, for tests of stream ordering).");
  m.def("_config", [] {
    const torch_core::SimulatedConfig config = torch_sim::runtime().config();
    py::dict result;
    result["device_count"] = config.device_count;
    result["memory_bytes_per_device"] = config.memory_bytes_per_device;
    return result;
  }, "The simulated runtime's settings (from TORCH_SIM_DEVICE_COUNT, TORCH_SIM_MEMORY_MB).");
  m.attr("fallback_policy_env") = torch_sim::kFallbackPolicyEnv;
  m.attr("allocator_config_env") = torch_sim::kAllocatorConfigEnv;
}
