#include "torch_core/csrc/device/register_backend.h"

#include <utility>

#include <ATen/core/CachingHostAllocator.h>
#include <ATen/detail/PrivateUse1HooksInterface.h>
#include <c10/core/Allocator.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>

#include "torch_core/csrc/device/device_graph.h"
#include "torch_core/csrc/device/privateuse1_hooks.h"
#include "torch_core/csrc/device/profiler_stubs.h"

namespace torch_core {

Backend& register_backend(BackendOptions options) {
  Backend& backend = Backend::create(std::move(options));
  const c10::DeviceType type = backend.device_type();
  // Leaked: c10's guard registry holds the pointer for the life of the process.
  new c10::impl::DeviceGuardImplRegistrar(type, &backend.guard());
  c10::SetAllocator(type, &backend.allocator());
  at::setHostAllocator(type, &backend.host_allocator());
  register_graph_impl(backend);
  register_profiler_stubs(backend);
  if (type == c10::DeviceType::PrivateUse1) {
    at::RegisterPrivateUse1HooksInterface(new PrivateUse1Hooks());
  }
  // CUDA's hooks (at::CUDAHooksInterface) are not registered here: torch._C creates them
  // once, from at::CUDAHooksRegistry, while it initialises, so the CUDA backend adds its
  // registry entry from a static initialiser of a library loaded before torch._C (the
  // torch_patches ledger entry load_before_torch_c).
  return backend;
}

}  // namespace torch_core
