#include "torch_core/csrc/simulated/simulated_device_bindings.h"

#include <chrono>
#include <thread>

#include "torch_core/csrc/device/backend.h"
#include "torch_core/csrc/runtime/simulated_config.h"
#include "torch_core/csrc/simulated/simulated_device.h"

namespace py = pybind11;

namespace torch_core {

void bind_simulated_device_api(py::module_& m, c10::DeviceType device_type) {
  m.def("_sleep", [device_type](double milliseconds) {
    Backend& backend = Backend::get(device_type);
    const StreamHandle stream = backend.streams().current_handle(backend.current_device());
    const auto duration = std::chrono::duration<double, std::milli>(milliseconds);
    simulated_device::enqueue(device_type, stream, [duration] { std::this_thread::sleep_for(duration); });
  }, py::arg("milliseconds"),
        "Queues a work item that takes `milliseconds` on the current stream (torch.cuda._sleep's "
        "counterpart, for tests of stream ordering).");
  m.def("_config", [device_type] {
    const SimulatedConfig config = simulated_device::runtime(device_type).config();
    py::dict result;
    result["device_count"] = config.device_count;
    result["memory_bytes_per_device"] = config.memory_bytes_per_device;
    return result;
  }, "The simulated runtime's settings (from TORCH_SIM_DEVICE_COUNT, TORCH_SIM_MEMORY_MB).");
}

}  // namespace torch_core
