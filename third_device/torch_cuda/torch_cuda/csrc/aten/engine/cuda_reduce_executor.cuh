// The CUDA engine's reduction executor: runs one functor of torch_core's reduction table
// (torch_core/aten/engine/reduce_functors.h) over a reduce-mode OperandLoop. Each block
// folds one output at a time (grid-stride over outputs): its threads stride over the
// output's reduced elements, loading each from the input's dtype (dynamic casting), then
// combine their partials in shared memory; thread 0 projects and stores. No atomics, so
// results are run-to-run deterministic. Include only from .cu files compiled by nvcc.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include <c10/core/DynamicCast.h>
#include <c10/core/ScalarType.h>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/loop_index.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_check.h"
#include "torch_core/csrc/aten/engine/operand_loop.h"
#include "torch_core/csrc/aten/engine/reduce_dispatch.h"

namespace torch_cuda::engine {

constexpr int kReduceBlockThreads = 256;

struct ReduceParams {
  loop::LoopParams<torch_core::engine::kMaxOperands> outer;
  loop::LoopParams<1> inner;
  std::int64_t outputs;
  std::int64_t slice;
  int noutputs;
  c10::ScalarType dtypes[torch_core::engine::kMaxOperands];
};

template <typename R>
__device__ __forceinline__ void store_projected(const R& value, const ReduceParams& p, const std::int64_t* off) {
  c10::cast_and_store<R>(p.dtypes[0], p.outer.data[0] + off[0], value);
}
template <typename R>
__device__ __forceinline__ void store_projected(const torch_core::engine::OutPair<R>& value, const ReduceParams& p,
                                                const std::int64_t* off) {
  c10::cast_and_store<R>(p.dtypes[0], p.outer.data[0] + off[0], value.first);
  if (p.noutputs > 1) c10::cast_and_store<R>(p.dtypes[1], p.outer.data[1] + off[1], value.second);
}

template <typename F>
__global__ void __launch_bounds__(kReduceBlockThreads) reduce_kernel(ReduceParams p, F f) {
  using Acc = typename torch_core::engine::reduce_traits<F>::acc;
  using Input = typename torch_core::engine::reduce_traits<F>::input;
  // Raw storage: an accumulator type may have constructors, which __shared__ forbids.
  __shared__ alignas(Acc) unsigned char storage[kReduceBlockThreads * sizeof(Acc)];
  Acc* shared = reinterpret_cast<Acc*>(storage);
  const int tid = static_cast<int>(threadIdx.x);
  const c10::ScalarType input_dtype = p.dtypes[p.noutputs];
  for (std::int64_t o = blockIdx.x; o < p.outputs; o += gridDim.x) {
    std::int64_t out_off[torch_core::engine::kMaxOperands];
    loop::offsets(p.outer, o, out_off);
    const char* base = p.outer.data[p.noutputs] + out_off[p.noutputs];
    Acc acc = f.identity();
    for (std::int64_t i = tid; i < p.slice; i += kReduceBlockThreads) {
      std::int64_t in_off[1];
      loop::offsets(p.inner, i, in_off);
      acc = f.reduce(acc, c10::fetch_and_cast<Input>(input_dtype, base + in_off[0]), i);
    }
    shared[tid] = acc;
    __syncthreads();
    for (int width = kReduceBlockThreads / 2; width > 0; width /= 2) {
      if (tid < width) shared[tid] = f.combine(shared[tid], shared[tid + width]);
      __syncthreads();
    }
    if (tid == 0) store_projected(f.project(shared[0]), p, out_off);
    __syncthreads();  // `shared` is reused by the block's next output
  }
}

struct CudaReduceExecutor {
  cudaStream_t stream;

  template <typename T>
  using acc_t = torch_core::engine::reduce_acc_t<T, /*kOnDevice=*/true>;

  const char* device_name() const { return "cuda"; }

  template <typename F>
  void run_reduce(const F& f, const torch_core::engine::OperandLoop& operands, int noutputs) {
    const torch_core::engine::ReductionLoops loops = torch_core::engine::split_reduction(operands, noutputs);
    ReduceParams params{};
    params.outer = loop::make_params(loops.outer);
    params.inner = loop::make_params(loops.inner);
    params.outputs = loops.outer.numel();
    params.slice = loops.inner.numel();
    params.noutputs = noutputs;
    for (int i = 0; i < torch_core::engine::kMaxOperands; ++i) params.dtypes[i] = operands.dtypes[i];
    if (params.outputs == 0) return;
    constexpr std::int64_t kMaxBlocks = 65535;
    const auto blocks = static_cast<unsigned>(params.outputs < kMaxBlocks ? params.outputs : kMaxBlocks);
    reduce_kernel<F><<<blocks, kReduceBlockThreads, 0, stream>>>(params, f);
    TORCH_CUDA_CHECK(cudaGetLastError());
  }
};

}  // namespace torch_cuda::engine
