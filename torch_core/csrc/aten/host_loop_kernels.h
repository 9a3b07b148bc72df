// Kernels for a device whose memory the host addresses (a simulated device): torch_core's
// kernel loop API run as host loops, each queued on a stream's worker by the backend's
// launch function. torch_sim and torch_cuda's simulated variant share them; a backend on
// real hardware writes its own (third_device/torch_cuda/csrc/aten).
#pragma once

#include <functional>
#include <memory>
#include <optional>

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include "torch_core/aten/device_kernels.h"
#include "torch_core/device/backend.h"
#include "torch_core/runtime/device_runtime.h"

namespace torch_core {

// A kernel launch: `work` runs on the worker of `stream`, after what is queued there.
// Kernels capture raw pointers and sizes, never tensors (as a GPU kernel's arguments):
// the caching allocator's stream semantics keep the memory valid.
using HostLaunch = void (*)(StreamHandle stream, std::function<void()> work);

// DeviceKernels for the generic ops: strided same-dtype copy, and fill.
std::unique_ptr<DeviceKernels> make_host_loop_device_kernels(HostLaunch launch);

// normal_ and uniform_ of a strided float or double tensor on `backend`'s device, from
// Philox4x32-10 streams: a call reserves its draws from the device's PhiloxGenerator (or
// `generator`), so calls in a row draw fresh numbers and manual_seed / set_rng_state
// replay them. Bad arguments raise as stock torch's kernels do. They return false,
// queueing nothing, for a tensor they do not cover; the caller then falls back.
bool host_normal_(Backend& backend, HostLaunch launch, at::Tensor& self, double mean, double std,
                  const std::optional<at::Generator>& generator);
bool host_uniform_(Backend& backend, HostLaunch launch, at::Tensor& self, double from, double to,
                   const std::optional<at::Generator>& generator);

}  // namespace torch_core
