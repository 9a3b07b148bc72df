// The device half of torch's profiler for one backend. torch's profiler times a device's
// work through a table of stubs per device type (torch/csrc/profiler/stubs/base.h): with
// ProfilerActivity.CUDA but no CUPTI (every CPU wheel), torch.profiler falls back to
// recording a timing event on the current stream around each operator and reads the
// elapsed device time from them (KINETO_GPU_FALLBACK); the legacy profiler
// (use_device="cuda") does the same. The CPU wheel's CUDA stubs only warn "CUDA used in
// profiler but not enabled" at every operator. These stubs answer over the backend's
// device guard, so its events, streams and runtime time the work (on the simulator: the
// stream worker's spans). emit_nvtx's ranges go to the annotations a vendor sets.
#pragma once

#include <c10/core/DeviceType.h>

namespace torch_core {

class Backend;

// Annotation calls for the profiler's NVTX mode (torch.autograd.profiler.emit_nvtx);
// a null function ignores the call.
struct ProfilerAnnotations {
  void (*mark)(const char* message) = nullptr;
  void (*range_push)(const char* message) = nullptr;
  void (*range_pop)() = nullptr;
};

// Makes the backend's stubs the profiler's for its device type (CUDA or PrivateUse1).
void register_profiler_stubs(Backend& backend);
// Replaces the annotation calls of `device_type`'s stubs (registered before).
void set_profiler_annotations(c10::DeviceType device_type, ProfilerAnnotations annotations);

}  // namespace torch_core
