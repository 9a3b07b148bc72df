#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_backend.h"

#include <utility>

#include <c10/util/Exception.h>

#include "third_device/torch_cuda/torch_cuda/csrc/framework/variant.h"
#include "torch_core/csrc/aten/cpu_fallback.h"
#include "torch_core/csrc/aten/engine/engine_device_kernels.h"
#include "torch_core/csrc/device/register_backend.h"

namespace torch_cuda {

torch_core::Backend& backend() {
  static torch_core::Backend& the_backend = []() -> torch_core::Backend& {
    torch_core::BackendOptions options;
    options.device_type = c10::DeviceType::CUDA;
    options.make_runtime = &variant::make_runtime;
    options.allocator_config_env = kAllocatorConfigEnv;
    torch_core::Backend& created = torch_core::register_backend(std::move(options));
    // The generic copy and fill on the variant's engine (the CUDA engine, or the host
    // engine on the simulated runtime), so CI runs the kernels' path a GPU takes.
    torch_core::register_device_kernels(c10::DeviceType::CUDA,
                                        torch_core::engine::engine_device_kernels(c10::DeviceType::CUDA));
    variant::register_kernels();
    torch_core::init_cpu_fallback<c10::DeviceType::CUDA>(kFallbackPolicyEnv);
    return created;
  }();
  return the_backend;
}

std::pair<int, int> current_compute_capability() {
  torch_core::Backend& b = backend();
  b.initialize();
  return variant::compute_capability(b.current_device());
}

}  // namespace torch_cuda
