#include "torch_core/csrc/aten/engine/kernel_engine.h"

#include <c10/util/Exception.h>

#include "torch_core/csrc/aten/engine/stub_kernels.h"
#include "torch_core/csrc/device/backend.h"

namespace torch_core::engine {

void register_kernel_engine(c10::DeviceType device_type, KernelEngine* engine) {
  TORCH_CHECK(engine != nullptr, "register_kernel_engine: null engine for ", device_type);
  Backend::get(device_type).set_kernel_engine(engine);
  fill_stubs(device_type);
}

KernelEngine& kernel_engine(c10::DeviceType device_type) {
  Backend* backend = Backend::find(device_type);
  KernelEngine* engine = backend == nullptr ? nullptr : backend->kernel_engine();
  TORCH_CHECK(engine != nullptr, "no kernel engine is registered for ", device_type,
              ": the backend must call torch_core::engine::register_kernel_engine when it loads");
  return *engine;
}

}  // namespace torch_core::engine
