#include "third_device/torch_sim/csrc/sim_backend.h"

#include <utility>

#include "torch_core/csrc/aten/cpu_fallback.h"
#include "torch_core/csrc/aten/device_kernels.h"
#include "torch_core/csrc/device/register_backend.h"
#include "torch_core/csrc/simulated/simulated_device.h"

namespace torch_sim {

torch_core::Backend& register_backend() {
  static torch_core::Backend& backend = [] () -> torch_core::Backend& {
    namespace simulated = torch_core::simulated_device;
    torch_core::BackendOptions options;
    options.device_type = kDeviceType;
    options.make_runtime = &simulated::make_runtime;
    options.allocator_config_env = kAllocatorConfigEnv;
    torch_core::Backend& created = torch_core::register_backend(std::move(options));
    torch_core::register_device_kernels(kDeviceType, simulated::host_loop_kernels<kDeviceType>());
    simulated::register_host_engine<kDeviceType>();
    torch_core::init_cpu_fallback<kDeviceType>(kFallbackPolicyEnv);
    return created;
  }();
  return backend;
}

}  // namespace torch_sim
