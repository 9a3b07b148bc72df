// What every backend whose devices are simulated shares (torch_sim on PrivateUse1, the
// simulated torch_cuda on CUDA), so that such a backend keeps only its registrations:
// - the runtime: torch_core's SimulatedRuntime (host memory, one worker thread per
//   stream), configured from TORCH_SIM_DEVICE_COUNT and TORCH_SIM_MEMORY_MB when the
//   device is first used;
// - the launch that queues host work on its streams, as a GPU kernel launch queues work;
// - the kernels over that launch: the host-loop device kernels and the host engine.
#pragma once

#include <functional>
#include <memory>
#include <utility>

#include <c10/core/DeviceType.h>

#include "torch_core/csrc/aten/device_kernels.h"
#include "torch_core/csrc/aten/engine/host_engine.h"
#include "torch_core/csrc/aten/host_loop_kernels.h"
#include "torch_core/csrc/runtime/device_runtime.h"
#include "torch_core/csrc/runtime/simulated_runtime.h"

namespace torch_core::simulated_device {

// A SimulatedRuntime configured from the environment (BackendOptions::make_runtime).
std::unique_ptr<DeviceRuntime> make_runtime();

// The runtime of the backend on `device_type`, made now if it was not (c10::Error with the
// cause when its settings are bad or the backend's runtime is not a simulated one).
SimulatedRuntime& runtime(c10::DeviceType device_type);

// Queues `work` on the worker of `stream`, after what is queued there. Kernels capture raw
// pointers and sizes, never tensors (as a GPU kernel's arguments): the caching
// allocator's stream semantics keep the memory valid until the work ran.
void enqueue(c10::DeviceType device_type, StreamHandle stream, std::function<void()> work);

// enqueue() for one device type, as the plain function pointer kernels take (HostLaunch).
template <c10::DeviceType kDeviceType>
void launch(StreamHandle stream, std::function<void()> work) {
  enqueue(kDeviceType, stream, std::move(work));
}

// The host-loop device kernels (strided copy, fill) over launch<kDeviceType>; made once and
// leaked, as registered kernels live for the rest of the process.
template <c10::DeviceType kDeviceType>
DeviceKernels* host_loop_kernels() {
  static DeviceKernels* const kernels = make_host_loop_device_kernels(&launch<kDeviceType>).release();
  return kernels;
}

// Registers the host engine (stock's DispatchStub kernels as host loops) for kDeviceType.
template <c10::DeviceType kDeviceType>
void register_host_engine() {
  engine::register_host_engine(kDeviceType, &launch<kDeviceType>);
}

}  // namespace torch_core::simulated_device
