#include "third_device/torch_sim/csrc/sim_backend.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <utility>

#include <c10/util/Exception.h>

#include "torch_core/aten/cpu_fallback.h"
#include "torch_core/aten/device_kernels.h"
#include "torch_core/aten/engine/host_engine.h"
#include "torch_core/aten/host_loop_kernels.h"
#include "torch_core/device/register_backend.h"
#include "torch_core/runtime/simulated_config.h"

namespace torch_sim {

namespace {

std::atomic<torch_core::SimulatedRuntime*> the_runtime{nullptr};

std::unique_ptr<torch_core::DeviceRuntime> make_runtime() {
  auto runtime = std::make_unique<torch_core::SimulatedRuntime>(torch_core::SimulatedConfig::from_env());
  the_runtime.store(runtime.get());
  return runtime;
}

}  // namespace

torch_core::Backend& register_backend() {
  static torch_core::Backend& backend = [] () -> torch_core::Backend& {
    torch_core::BackendOptions options;
    options.device_type = c10::DeviceType::PrivateUse1;
    options.make_runtime = &make_runtime;
    options.allocator_config_env = kAllocatorConfigEnv;
    torch_core::Backend& created = torch_core::register_backend(std::move(options));
    // Leaked: registered kernels live for the rest of the process.
    torch_core::register_device_kernels(c10::DeviceType::PrivateUse1,
                                        torch_core::make_host_loop_device_kernels(&launch).release());
    torch_core::engine::register_host_engine(c10::DeviceType::PrivateUse1, &launch);
    torch_core::init_fallback_policy_from_env(c10::DeviceType::PrivateUse1, kFallbackPolicyEnv);
    return created;
  }();
  return backend;
}

torch_core::SimulatedRuntime& runtime() {
  register_backend().initialize();
  return *the_runtime.load();
}

void launch(torch_core::StreamHandle stream, std::function<void()> work) {
  torch_core::SimulatedRuntime& sim = runtime();
  try {
    sim.enqueue(stream, std::move(work));
  } catch (const torch_core::RuntimeError& e) {
    TORCH_CHECK(false, e.what());
  }
}

}  // namespace torch_sim
