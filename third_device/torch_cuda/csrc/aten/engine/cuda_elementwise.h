// The CUDA engine's elementwise entry points: one function per operation of torch_core's
// table, each defined in the .cu file of its group (elementwise_<group>.cu), so that a
// change to one group recompiles one unit. Host C++ may include this header.
#pragma once

#include "torch_core/aten/engine/elementwise_call.h"
#include "torch_core/aten/engine/operand_loop.h"
#include "torch_core/runtime/device_runtime.h"

namespace torch_cuda::engine {

#define TORCH_CUDA_DECLARE(name)                                                                 \
  void run_##name(const torch_core::engine::ElementwiseCall& call, const torch_core::engine::OperandLoop& loop, \
                  torch_core::StreamHandle stream);
TORCH_CORE_ELEMENTWISE_OPS(TORCH_CUDA_DECLARE)
#undef TORCH_CUDA_DECLARE

// Defines run_<name> for one operation (in a .cu file, after cuda_executor.cuh).
#define TORCH_CUDA_DEFINE_ELEMENTWISE(name)                                                        \
  void run_##name(const torch_core::engine::ElementwiseCall& call, const torch_core::engine::OperandLoop& loop, \
                  torch_core::StreamHandle stream) {                                               \
    CudaExecutor executor{static_cast<cudaStream_t>(stream)};                                      \
    torch_core::engine::run_op<torch_core::engine::name>(call, loop, executor);                   \
  }

}  // namespace torch_cuda::engine
