// The CUDA engine's executor: runs one functor of torch_core's elementwise table
// (torch_core/aten/engine/elementwise_functors.h) over an OperandLoop on a GPU stream,
// with gpu_kernel's dynamic casting: every operand is loaded from its own dtype as the
// functor's argument type and the result stored as the output's dtype. One thread per
// element in a grid-stride loop; host scalars travel in the kernel's parameters.
// Include only from .cu files compiled by nvcc.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <utility>

#include <c10/core/DynamicCast.h>
#include <c10/core/ScalarType.h>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/loop_index.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_check.h"
#include "torch_core/csrc/aten/engine/elementwise_dispatch.h"
#include "torch_core/csrc/aten/engine/operand_loop.h"

namespace torch_cuda::engine {

using torch_core::engine::kMaxOperands;
using torch_core::engine::OperandLoop;

constexpr int kThreads = 256;
constexpr std::int64_t kMaxBlocks = 65535;

struct KernelParams {
  loop::LoopParams<kMaxOperands> loop;
  c10::ScalarType dtypes[kMaxOperands];
  bool is_host_scalar[kMaxOperands];
  alignas(16) unsigned char scalar_bytes[kMaxOperands][16];
};

template <typename F, std::size_t... I>
__device__ __forceinline__ void apply(const F& f, const KernelParams& p, const std::int64_t (&off)[kMaxOperands],
                                      std::index_sequence<I...>) {
  using traits = torch_core::engine::functor_traits<F>;
  auto operand = [&](int i) -> const void* {
    return p.is_host_scalar[i] ? static_cast<const void*>(p.scalar_bytes[i]) : p.loop.data[i] + off[i];
  };
  const auto result = f(c10::fetch_and_cast<std::tuple_element_t<I, typename traits::args>>(p.dtypes[I + 1],
                                                                                            operand(I + 1))...);
  c10::cast_and_store<typename traits::result>(p.dtypes[0], p.loop.data[0] + off[0], result);
}

template <typename F>
__global__ void elementwise_kernel(KernelParams params, std::int64_t n, F f) {
  const std::int64_t stride = static_cast<std::int64_t>(blockDim.x) * gridDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    std::int64_t off[kMaxOperands];
    loop::offsets(params.loop, i, off);
    apply(f, params, off, std::make_index_sequence<torch_core::engine::functor_traits<F>::arity>{});
  }
}

inline KernelParams make_kernel_params(const OperandLoop& operands) {
  KernelParams params{};
  params.loop = loop::make_params(operands.loop);
  for (int i = 0; i < kMaxOperands; ++i) {
    params.dtypes[i] = operands.dtypes[i];
    params.is_host_scalar[i] = operands.is_host_scalar[i];
    for (int b = 0; b < 16; ++b) params.scalar_bytes[i][b] = operands.scalar_bytes[i][b];
  }
  return params;
}

// `bytes` rounded up so the next piece of an engine call's scratch starts aligned (CUB's
// temporary storage, and buffers of any element type).
inline std::size_t aligned_scratch(std::size_t bytes) {
  constexpr std::size_t kAlignment = 256;
  return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

// Blocks of kThreads for a grid-stride loop over n elements.
inline unsigned grid_blocks(std::int64_t n) {
  const std::int64_t wanted = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(wanted < kMaxBlocks ? wanted : kMaxBlocks);
}

struct CudaExecutor {
  cudaStream_t stream;

  const char* device_name() const { return "cuda"; }

  template <typename F>
  void run(const F& f, const OperandLoop& operands) {
    const std::int64_t n = operands.numel();
    if (n == 0) return;
    elementwise_kernel<F><<<grid_blocks(n), kThreads, 0, stream>>>(make_kernel_params(operands), n, f);
    TORCH_CUDA_CHECK(cudaGetLastError());
  }
};

}  // namespace torch_cuda::engine
