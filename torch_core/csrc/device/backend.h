// One device backend of torch_core: a device type (CUDA or PrivateUse1) and a runtime,
// with every device-agnostic piece built over them: stream registry, caching device
// allocator, pinned host allocator, default generators, device guard. A vendor supplies
// the runtime (and kernels); this is the rest.
//
// There is at most one Backend per device type in a process. It is created once, when
// the vendor's library loads, and never destroyed: c10's registries keep raw pointers to
// its pieces for the life of the process (as PyTorch's own CUDA pieces are leaked).
// The runtime itself is created on first use (LazyRuntime), not at creation.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include <c10/core/Device.h>
#include <c10/core/DeviceType.h>

#include "torch_core/csrc/device/cpu_fallback_state.h"
#include "torch_core/csrc/device/device_allocator.h"
#include "torch_core/csrc/device/device_guard.h"
#include "torch_core/csrc/device/host_allocator.h"
#include "torch_core/csrc/device/lazy_runtime.h"
#include "torch_core/csrc/device/philox_generator.h"
#include "torch_core/csrc/device/stream_registry.h"

namespace torch_core {

class DeviceKernels;  // torch_core/csrc/aten/device_kernels.h
namespace engine {
class KernelEngine;  // torch_core/csrc/aten/engine/kernel_engine.h
}  // namespace engine

struct BackendOptions {
  c10::DeviceType device_type = c10::DeviceType::PrivateUse1;
  // Makes the runtime, on first use; may throw RuntimeError ("no driver", ...).
  LazyRuntime::Factory make_runtime;
  // The variable the caching allocator's settings come from.
  std::string allocator_config_env = "PYTORCH_ALLOC_CONF";
};

class Backend {
 public:
  // Creates the backend of options.device_type. Throws if one exists already. The pieces
  // are not registered with c10 here: see register_backend.h.
  static Backend& create(BackendOptions options);
  // The backend of `device_type`; throws c10::Error naming the type when there is none.
  static Backend& get(c10::DeviceType device_type);
  static Backend* find(c10::DeviceType device_type) noexcept;

  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;

  c10::DeviceType device_type() const { return device_type_; }
  // "cuda", or the PrivateUse1 backend's registered name ("sim").
  std::string name() const;

  // Whether the runtime exists yet, and making it (idempotent, thread-safe); initialize()
  // returns the runtime itself, for a backend that knows which kind it made.
  bool initialized() const noexcept { return runtime_.initialized(); }
  DeviceRuntime& initialize();

  DeviceRuntime& runtime() { return runtime_; }
  StreamRegistry& streams() { return streams_; }
  DeviceCachingAllocator& allocator() { return allocator_; }
  PinnedHostAllocator& host_allocator() { return host_allocator_; }
  DeviceGuardImpl& guard() { return guard_; }

  // 0 when the runtime cannot be created or has no device; never throws. A runtime that
  // cannot be created warns once with its reason, as stock's c10::cuda::device_count
  // ("CUDA initialization: ..."), so is_available() is not quietly False.
  int device_count() noexcept;
  // `device` checked against device_count() (torch.AcceleratorError "invalid device
  // ordinal" naming the valid range, accelerator_errors.h); -1 is the current device.
  c10::DeviceIndex checked_index(c10::DeviceIndex device);
  c10::DeviceIndex current_device();

  const at::Generator& default_generator(c10::DeviceIndex device);
  at::Generator new_generator(c10::DeviceIndex device);

  // The copy/fill kernels torch_core's generic ops use (aten/device_kernels.h), or nullptr:
  // those ops then stage through host memory. Set once by the vendor, as registration.
  DeviceKernels* device_kernels() const noexcept { return device_kernels_.load(); }
  void set_device_kernels(DeviceKernels* kernels) noexcept { device_kernels_.store(kernels); }
  // The engine that runs the op layer's stub kernels (aten/engine/kernel_engine.h), or
  // nullptr until the vendor registers one.
  engine::KernelEngine* kernel_engine() const noexcept { return kernel_engine_.load(); }
  void set_kernel_engine(engine::KernelEngine* engine) noexcept { kernel_engine_.store(engine); }
  // The CPU fallback's policy and counters (aten/cpu_fallback.h).
  CpuFallbackState& cpu_fallback_state() noexcept { return cpu_fallback_state_; }

 private:
  explicit Backend(BackendOptions options);

  const c10::DeviceType device_type_;
  LazyRuntime runtime_;
  StreamRegistry streams_;
  DeviceCachingAllocator allocator_;
  PinnedHostAllocator host_allocator_;
  DefaultGenerators generators_;
  DeviceGuardImpl guard_;
  std::atomic<DeviceKernels*> device_kernels_{nullptr};
  std::atomic<engine::KernelEngine*> kernel_engine_{nullptr};
  CpuFallbackState cpu_fallback_state_;
  std::once_flag unavailable_warning_;
};

}  // namespace torch_core
