// Kernels for a device whose memory the host addresses (a simulated device): torch_core's
// kernel loop API run as host loops, each queued on a stream's worker by the backend's
// launch function. torch_sim and torch_cuda's simulated variant share them; a backend on
// real hardware writes its own (third_device/torch_cuda/torch_cuda/csrc/aten).
#pragma once

#include <functional>
#include <memory>

#include "torch_core/csrc/aten/device_kernels.h"
#include "torch_core/csrc/runtime/device_runtime.h"

namespace torch_core {

// A kernel launch: `work` runs on the worker of `stream`, after what is queued there.
// Kernels capture raw pointers and sizes, never tensors (as a GPU kernel's arguments):
// the caching allocator's stream semantics keep the memory valid.
using HostLaunch = void (*)(StreamHandle stream, std::function<void()> work);

// DeviceKernels for the generic ops: strided same-dtype copy, and fill.
std::unique_ptr<DeviceKernels> make_host_loop_device_kernels(HostLaunch launch);

}  // namespace torch_core
