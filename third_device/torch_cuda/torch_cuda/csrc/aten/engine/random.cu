// The CUDA engine's random-number kernels (torch_core/aten/engine/random_call.h): one
// thread per element in a grid-stride loop; element i draws from Philox subsequence i of
// the call's (seed, offset), as the host engine does, so both fill a tensor with the same
// numbers.
#include <cuda_runtime.h>

#include <cstdint>
#include <tuple>

#include <c10/core/DynamicCast.h>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/engine/cuda_executor.cuh"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/engine/cuda_kernels.h"
#include "torch_core/csrc/aten/engine/random_dispatch.h"

namespace torch_cuda::engine {

namespace {

using torch_core::engine::functor_traits;
using torch_core::engine::PhiloxDraws;
using torch_core::engine::RandomCall;

template <typename F>
__global__ void random_kernel(KernelParams p, std::int64_t n, F f, RandomCall call) {
  using traits = functor_traits<F>;
  const std::uint64_t seed = call.run_seed();
  const std::uint64_t offset = call.run_offset();
  const std::int64_t stride = static_cast<std::int64_t>(blockDim.x) * gridDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    std::int64_t off[kMaxOperands];
    loop::offsets(p.loop, i, off);
    PhiloxDraws rng(seed, static_cast<std::uint64_t>(i), offset);
    if constexpr (traits::arity == 1) {
      c10::cast_and_store<typename traits::result>(p.dtypes[0], p.loop.data[0] + off[0], f(rng));
    } else {
      using Param = std::tuple_element_t<1, typename traits::args>;
      const Param param = c10::fetch_and_cast<Param>(p.dtypes[1], p.loop.data[1] + off[1]);
      c10::cast_and_store<typename traits::result>(p.dtypes[0], p.loop.data[0] + off[0], f(rng, param));
    }
  }
}

struct CudaRandomExecutor {
  cudaStream_t stream;

  const char* device_name() const { return "cuda"; }

  template <typename F>
  void run_random(const F& f, const OperandLoop& operands, const RandomCall& call) {
    const std::int64_t n = operands.numel();
    if (n == 0) return;
    random_kernel<F><<<grid_blocks(n), kThreads, 0, stream>>>(make_kernel_params(operands), n, f, call);
    TORCH_CUDA_CHECK(cudaGetLastError());
  }
};

}  // namespace

void run_random(const RandomCall& call, const OperandLoop& loop, torch_core::StreamHandle stream) {
  CudaRandomExecutor executor{static_cast<cudaStream_t>(stream)};
  torch_core::engine::dispatch_random(call, loop, executor);
}

}  // namespace torch_cuda::engine
