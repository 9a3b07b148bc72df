#include "torch_core/csrc/simulated/simulated_device.h"

#include <c10/util/Exception.h>

#include "torch_core/csrc/device/backend.h"
#include "torch_core/csrc/device/runtime_call.h"
#include "torch_core/csrc/runtime/simulated_config.h"

namespace torch_core::simulated_device {

std::unique_ptr<DeviceRuntime> make_runtime() {
  return std::make_unique<SimulatedRuntime>(SimulatedConfig::from_env());
}

SimulatedRuntime& runtime(c10::DeviceType device_type) {
  Backend& backend = Backend::get(device_type);
  auto* simulated = dynamic_cast<SimulatedRuntime*>(&backend.initialize());
  TORCH_CHECK(simulated != nullptr, "the ", backend.name(),
              " backend's runtime is not torch_core's SimulatedRuntime (make it with "
              "simulated_device::make_runtime)");
  return *simulated;
}

void enqueue(c10::DeviceType device_type, StreamHandle stream, std::function<void()> work) {
  SimulatedRuntime& sim = runtime(device_type);
  // A kernel's TORCH_CHECK fails on the stream's worker and is reported at the next
  // synchronisation (a device-side assert): its message, not c10's C++ backtrace.
  auto kernel = [work = std::move(work)] {
    try {
      work();
    } catch (const c10::Error& error) {
      throw RuntimeError(error.what_without_backtrace());
    }
  };
  runtime_call(device_type, [&] { sim.enqueue(stream, std::move(kernel)); });
}

}  // namespace torch_core::simulated_device
