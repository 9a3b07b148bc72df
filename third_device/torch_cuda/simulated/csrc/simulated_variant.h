// The simulated variant of torch_cuda: the CUDA key over torch_core's SimulatedRuntime
// (host memory, one worker thread per stream), so CI runs the CUDA-key integration
// without a GPU. Settings: TORCH_SIM_DEVICE_COUNT and TORCH_SIM_MEMORY_MB (the simulated
// runtime's own), PYTORCH_CUDA_ALLOC_CONF, TORCH_CUDA_FALLBACK.
#pragma once

#include <functional>

#include "torch_core/runtime/simulated_runtime.h"

namespace torch_cuda::simulated {

// The runtime, created now if it was not.
torch_core::SimulatedRuntime& runtime();

// A kernel launch: `work` runs on the worker of `stream`, after what is queued there.
// Kernels capture raw pointers and sizes, never tensors (as a GPU kernel's arguments).
void launch(torch_core::StreamHandle stream, std::function<void()> work);

}  // namespace torch_cuda::simulated
