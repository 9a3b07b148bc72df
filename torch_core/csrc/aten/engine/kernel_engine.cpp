#include "torch_core/csrc/aten/engine/kernel_engine.h"

#include <array>
#include <atomic>

#include <c10/util/Exception.h>

#include "torch_core/csrc/aten/engine/stub_kernels.h"

namespace torch_core::engine {

namespace {

std::array<std::atomic<KernelEngine*>, static_cast<std::size_t>(c10::DeviceType::COMPILE_TIME_MAX_DEVICE_TYPES)>
    engines{};

std::size_t slot(c10::DeviceType device_type) { return static_cast<std::size_t>(device_type); }

}  // namespace

void register_kernel_engine(c10::DeviceType device_type, KernelEngine* engine) {
  TORCH_CHECK(engine != nullptr, "register_kernel_engine: null engine for ", device_type);
  engines[slot(device_type)].store(engine);
  fill_stubs(device_type);
}

KernelEngine& kernel_engine(c10::DeviceType device_type) {
  KernelEngine* engine = engines[slot(device_type)].load();
  TORCH_CHECK(engine != nullptr, "no kernel engine is registered for ", device_type,
              ": the backend must call torch_core::engine::register_kernel_engine when it loads");
  return *engine;
}

}  // namespace torch_core::engine
