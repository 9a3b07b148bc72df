// The kernel loop API, CUDA side: launches the functors that torch_core's kernel_loop.h
// runs on the host (the same StridedLoop description, the same functors from
// loop_ops.h) on a GPU stream. Include only from .cu files compiled by nvcc.
//
//   elementwise<Out, In...>(loop, op, stream)   out = op(in...) over N-d strided operands
//   reduce<Out, In, Acc>(outer, inner, init, op, stream)
//                                               kernel_loop.h's reduce, on the GPU
//
// Elementwise: one thread per element in a grid-stride loop. A loop whose operands are
// all contiguous after coalescing indexes typed pointers directly; otherwise every linear
// index is turned into per-operand byte offsets from sizes and strides (loop_index.h),
// in kernel_loop.h's order. Operands must be aligned to their element size (torch
// tensors are: storage offsets count elements).
//
// Reduction: block b of output o folds one chunk of o's slice (threads stride over it,
// then a shared-memory tree folds the block's partials); with one chunk per output the
// block writes the output, otherwise a second kernel folds each output's chunk partials
// in a fixed order. No atomics, so results are run-to-run deterministic. An empty slice
// gives `init`; no outputs launch nothing.
//
// Every launch is followed by TORCH_CUDA_CHECK(cudaGetLastError()), so a bad launch
// (no device, too many blocks) throws CudaError at the call that made it.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <utility>

#include "third_device/torch_cuda/csrc/aten/loop_index.h"
#include "third_device/torch_cuda/csrc/framework/cuda_check.h"
#include "torch_core/aten/kernel_loop.h"

namespace torch_cuda::loop {

constexpr int kElementwiseThreads = 256;
// Grid-x cap; each thread strides over the rest. 65535 blocks of 256 threads fill any
// current GPU many times over.
constexpr std::int64_t kMaxElementwiseBlocks = 65535;

inline unsigned elementwise_blocks(std::int64_t n) {
  std::int64_t blocks = (n + kElementwiseThreads - 1) / kElementwiseThreads;
  return static_cast<unsigned>(blocks < kMaxElementwiseBlocks ? blocks : kMaxElementwiseBlocks);
}

namespace detail {

template <int N>
struct Pointers {
  char* p[N];
};

template <typename Out, typename... In, typename Op, std::size_t... I>
__device__ __forceinline__ void apply_contiguous(const Pointers<1 + sizeof...(In)>& ptrs, std::int64_t i,
                                                 const Op& op, std::index_sequence<I...>) {
  reinterpret_cast<Out*>(ptrs.p[0])[i] =
      static_cast<Out>(op(reinterpret_cast<const In*>(ptrs.p[I + 1])[i]...));
}

template <typename Out, typename... In, typename Op, std::size_t... I>
__device__ __forceinline__ void apply_strided(const LoopParams<1 + sizeof...(In)>& params,
                                              const std::int64_t (&off)[1 + sizeof...(In)], const Op& op,
                                              std::index_sequence<I...>) {
  *reinterpret_cast<Out*>(params.data[0] + off[0]) =
      static_cast<Out>(op(*reinterpret_cast<const In*>(params.data[I + 1] + off[I + 1])...));
}

// (nvcc wants the pack of a variadic __global__ template last.)
template <typename Op, typename Out, typename... In>
__global__ void contiguous_kernel(Pointers<1 + sizeof...(In)> ptrs, std::int64_t n, Op op) {
  const std::int64_t stride = static_cast<std::int64_t>(blockDim.x) * gridDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    apply_contiguous<Out, In...>(ptrs, i, op, std::index_sequence_for<In...>{});
  }
}

template <typename Op, typename Out, typename... In>
__global__ void strided_kernel(LoopParams<1 + sizeof...(In)> params, std::int64_t n, Op op) {
  constexpr int N = 1 + sizeof...(In);
  const std::int64_t stride = static_cast<std::int64_t>(blockDim.x) * gridDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    std::int64_t off[N];
    offsets(params, i, off);
    apply_strided<Out, In...>(params, off, op, std::index_sequence_for<In...>{});
  }
}

// Folds the block's per-thread values into thread 0's (blockDim.x == kReduceThreads, a
// power of two). The fold order is fixed, so results are deterministic.
template <typename Acc, typename Op>
__device__ __forceinline__ Acc block_reduce(Acc value, Acc* shared, const Op& op) {
  shared[threadIdx.x] = value;
  __syncthreads();
  for (int width = kReduceThreads / 2; width > 0; width /= 2) {
    if (static_cast<int>(threadIdx.x) < width) {
      shared[threadIdx.x] = op(shared[threadIdx.x], shared[threadIdx.x + width]);
    }
    __syncthreads();
  }
  return shared[0];
}

// Pass 1. blockIdx.y: the chunk; blockIdx.x strides over outputs. With chunks == 1 the
// block stores the output, otherwise its partial in partials[output * chunks + chunk].
template <typename Out, typename In, typename Acc, typename Op>
__global__ void __launch_bounds__(kReduceThreads)
    reduce_kernel(LoopParams<2> outer, LoopParams<1> inner, std::int64_t outputs, std::int64_t slice,
                  std::int64_t chunk_size, Acc init, Op op, Acc* partials) {
  __shared__ Acc shared[kReduceThreads];
  const std::int64_t chunk = blockIdx.y;
  const std::int64_t chunks = gridDim.y;
  std::int64_t begin = chunk * chunk_size;
  std::int64_t end = begin + chunk_size;
  if (end > slice) end = slice;
  for (std::int64_t o = blockIdx.x; o < outputs; o += gridDim.x) {
    std::int64_t out_off[2];
    offsets(outer, o, out_off);
    const char* base = outer.data[1] + out_off[1];
    Acc acc = init;
    for (std::int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
      std::int64_t in_off[1];
      offsets(inner, i, in_off);
      acc = op(acc, static_cast<Acc>(*reinterpret_cast<const In*>(base + in_off[0])));
    }
    acc = block_reduce(acc, shared, op);
    if (threadIdx.x == 0) {
      if (chunks == 1) {
        *reinterpret_cast<Out*>(outer.data[0] + out_off[0]) = static_cast<Out>(acc);
      } else {
        partials[o * chunks + chunk] = acc;
      }
    }
    __syncthreads();  // `shared` is reused by the next output
  }
}

// Pass 2: one block per output (grid-stride) folds its `chunks` partials.
template <typename Out, typename Acc, typename Op>
__global__ void __launch_bounds__(kReduceThreads)
    reduce_partials_kernel(LoopParams<2> outer, std::int64_t outputs, std::int64_t chunks, Acc init, Op op,
                           const Acc* partials) {
  __shared__ Acc shared[kReduceThreads];
  for (std::int64_t o = blockIdx.x; o < outputs; o += gridDim.x) {
    Acc acc = init;
    for (std::int64_t c = threadIdx.x; c < chunks; c += blockDim.x) acc = op(acc, partials[o * chunks + c]);
    acc = block_reduce(acc, shared, op);
    if (threadIdx.x == 0) {
      std::int64_t out_off[2];
      offsets(outer, o, out_off);
      *reinterpret_cast<Out*>(outer.data[0] + out_off[0]) = static_cast<Out>(acc);
    }
    __syncthreads();
  }
}

}  // namespace detail

// out = op(in...) elementwise on `stream`; operand 0 of `loop` is the output.
template <typename Out, typename... In, typename Op>
void elementwise(const torch_core::loop::StridedLoop<1 + sizeof...(In)>& loop, const Op& op,
                 cudaStream_t stream) {
  constexpr int N = 1 + sizeof...(In);
  const LoopParams<N> params = make_params(loop);
  const std::int64_t n = numel(params);
  if (n == 0) return;
  const std::int64_t itemsizes[N] = {static_cast<std::int64_t>(sizeof(Out)),
                                     static_cast<std::int64_t>(sizeof(In))...};
  const unsigned blocks = elementwise_blocks(n);
  if (is_contiguous(params, itemsizes)) {
    detail::Pointers<N> ptrs;
    for (int i = 0; i < N; ++i) ptrs.p[i] = params.data[i];
    detail::contiguous_kernel<Op, Out, In...><<<blocks, kElementwiseThreads, 0, stream>>>(ptrs, n, op);
  } else {
    detail::strided_kernel<Op, Out, In...><<<blocks, kElementwiseThreads, 0, stream>>>(params, n, op);
  }
  TORCH_CUDA_CHECK(cudaGetLastError());
}

// kernel_loop.h's reduce on `stream`: `outer` walks the outputs (operand 0: the output,
// operand 1: where its input slice starts), `inner` one slice (data ignored, strides of
// the reduced dimensions). The partials of a split reduction live in stream-ordered
// memory (cudaMallocAsync/cudaFreeAsync on `stream`), so no host synchronisation.
template <typename Out, typename In, typename Acc, typename Op>
void reduce(const torch_core::loop::StridedLoop<2>& outer, const torch_core::loop::StridedLoop<1>& inner, Acc init,
            const Op& op, cudaStream_t stream) {
  const LoopParams<2> out_params = make_params(outer);
  const LoopParams<1> in_params = make_params(inner);
  const std::int64_t outputs = numel(out_params);
  if (outputs == 0) return;
  const std::int64_t slice = numel(in_params);
  const ReducePlan plan = plan_reduce(outputs, slice);
  const std::int64_t chunks = plan.chunks > 0 ? plan.chunks : 1;
  const unsigned blocks_x = static_cast<unsigned>(outputs < kMaxElementwiseBlocks ? outputs : kMaxElementwiseBlocks);
  Acc* partials = nullptr;
  if (chunks > 1) {
    TORCH_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&partials),
                                     static_cast<std::size_t>(outputs * chunks) * sizeof(Acc), stream));
  }
  detail::reduce_kernel<Out, In, Acc><<<dim3(blocks_x, static_cast<unsigned>(chunks)), kReduceThreads, 0, stream>>>(
      out_params, in_params, outputs, slice, plan.chunk_size, init, op, partials);
  const cudaError_t launched = cudaGetLastError();
  if (launched == cudaSuccess && chunks > 1) {
    detail::reduce_partials_kernel<Out, Acc><<<blocks_x, kReduceThreads, 0, stream>>>(out_params, outputs, chunks,
                                                                                     init, op, partials);
  }
  if (partials != nullptr) {
    // Freed in stream order, after the kernels that use it, even if one failed to launch.
    const cudaError_t freed = cudaFreeAsync(partials, stream);
    if (launched == cudaSuccess) TORCH_CUDA_CHECK(freed);
  }
  if (launched != cudaSuccess) {
    ::torch_cuda::throw_cuda_error(launched, "reduce_kernel<<<...>>> (cudaGetLastError)", __FILE__, __LINE__);
  }
  TORCH_CUDA_CHECK(cudaGetLastError());
}

}  // namespace torch_cuda::loop
