// The runtime's opaque handles (device_runtime.h), apart from the interface: the kernel
// engine's and the device kernels' entry points take a stream and nothing else of the
// runtime, so the headers declaring them include this one. A change to the interface then
// recompiles only what calls it, not every kernel.
#pragma once

namespace torch_core {

// Opaque handles owned by the runtime (a cudaStream_t / cudaEvent_t for CUDA).
using StreamHandle = void*;
using EventHandle = void*;
// A captured graph and an instantiated, launchable one (cudaGraph_t / cudaGraphExec_t).
using GraphHandle = void*;
using GraphExecHandle = void*;

}  // namespace torch_core
