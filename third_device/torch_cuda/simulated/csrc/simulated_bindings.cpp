// _CUDAC's simulated-variant functions: the runtime's settings, device queries over the
// backend, and a sleep kernel (torch.cuda._sleep's counterpart for stream-ordering tests).
#include <chrono>
#include <thread>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "third_device/torch_cuda/csrc/framework/cuda_backend.h"
#include "third_device/torch_cuda/csrc/pybinding/variant_bindings.h"
#include "third_device/torch_cuda/simulated/csrc/simulated_variant.h"
#include "torch_core/runtime/simulated_config.h"

namespace py = pybind11;

namespace torch_cuda {

void bind_variant(py::module_& m) {
  m.def("device_count", [] { return backend().device_count(); });
  m.def("unavailable_reason", [] { return backend().runtime().unavailable_reason(); });
  m.def("_sleep", [](double milliseconds) {
    torch_core::Backend& b = backend();
    const torch_core::StreamHandle stream = b.streams().current_handle(b.current_device());
    const auto duration = std::chrono::duration<double, std::milli>(milliseconds);
    simulated::launch(stream, [duration] { std::this_thread::sleep_for(duration); });
  }, py::arg("milliseconds"), "Queues a work item that takes `milliseconds` on the current stream.");
  m.def("_config", [] {
    const torch_core::SimulatedConfig config = simulated::runtime().config();
    py::dict result;
    result["device_count"] = config.device_count;
    result["memory_bytes_per_device"] = config.memory_bytes_per_device;
    return result;
  }, "The simulated runtime's settings (TORCH_SIM_DEVICE_COUNT, TORCH_SIM_MEMORY_MB).");
}

}  // namespace torch_cuda
