// The CUDA engine's entry points: one function per elementwise operation and per
// reduction of torch_core's tables, each defined in the .cu file of its group
// (elementwise_<group>.cu, reduce_<group>.cu), so that a change to one group recompiles
// one unit. Host C++ may include this header.
#pragma once

#include "torch_core/csrc/aten/engine/elementwise_call.h"
#include "torch_core/csrc/aten/engine/index_call.h"
#include "torch_core/csrc/aten/engine/operand_loop.h"
#include "torch_core/csrc/aten/engine/random_call.h"
#include "torch_core/csrc/aten/engine/reduce_call.h"
#include "torch_core/csrc/aten/engine/scan_call.h"
#include "torch_core/csrc/aten/engine/sort_call.h"
#include "torch_core/csrc/runtime/runtime_handles.h"

namespace torch_cuda::engine {

#define TORCH_CUDA_DECLARE(name)                                                                 \
  void run_##name(const torch_core::engine::ElementwiseCall& call, const torch_core::engine::OperandLoop& loop, \
                  torch_core::StreamHandle stream);
TORCH_CORE_ELEMENTWISE_OPS(TORCH_CUDA_DECLARE)
#undef TORCH_CUDA_DECLARE

#define TORCH_CUDA_DECLARE_REDUCE(name)                                                       \
  void reduce_##name(const torch_core::engine::ReduceCall& call, const torch_core::engine::OperandLoop& loop, \
                     torch_core::StreamHandle stream);
TORCH_CORE_REDUCE_OPS(TORCH_CUDA_DECLARE_REDUCE)
#undef TORCH_CUDA_DECLARE_REDUCE

// Advanced indexing (index.cu).
void run_index(const torch_core::engine::IndexCall& call, const torch_core::engine::OperandLoop& loop,
               torch_core::StreamHandle stream);

// Random numbers (random.cu).
void run_random(const torch_core::engine::RandomCall& call, const torch_core::engine::OperandLoop& loop,
                torch_core::StreamHandle stream);

// Segmented sort (sort.cu).
std::size_t sort_scratch_bytes(const torch_core::engine::SortCall& call);
void run_sort(const torch_core::engine::SortCall& call, torch_core::StreamHandle stream);

// Segmented scan (scan.cu).
std::size_t scan_scratch_bytes(const torch_core::engine::ScanCall& call);
void run_scan(const torch_core::engine::ScanCall& call, torch_core::StreamHandle stream);

// Defines reduce_<name> for one reduction (in a .cu file, after cuda_reduce_executor.cuh).
#define TORCH_CUDA_DEFINE_REDUCE(name)                                                          \
  void reduce_##name(const torch_core::engine::ReduceCall& call, const torch_core::engine::OperandLoop& loop, \
                     torch_core::StreamHandle stream) {                                         \
    CudaReduceExecutor executor{static_cast<cudaStream_t>(stream)};                             \
    torch_core::engine::run_reduce_op<torch_core::engine::name##Reduce>(call, loop, executor); \
  }

// Defines run_<name> for one operation (in a .cu file, after cuda_executor.cuh).
#define TORCH_CUDA_DEFINE_ELEMENTWISE(name)                                                        \
  void run_##name(const torch_core::engine::ElementwiseCall& call, const torch_core::engine::OperandLoop& loop, \
                  torch_core::StreamHandle stream) {                                               \
    CudaExecutor executor{static_cast<cudaStream_t>(stream)};                                      \
    torch_core::engine::run_op<torch_core::engine::name>(call, loop, executor);                   \
  }

}  // namespace torch_cuda::engine
