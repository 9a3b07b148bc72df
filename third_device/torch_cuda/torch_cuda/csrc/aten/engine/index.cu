// The CUDA engine's advanced-indexing kernel (torch_core/aten/engine/index_call.h): one
// thread per element in a grid-stride loop; an index out of range is a device-side
// assert, as in stock's CUDA index kernels. A put with accumulate=True adds atomically.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include <c10/core/ScalarType.h>
#include <c10/macros/Macros.h>
#include <c10/util/Exception.h>
#include <c10/util/complex.h>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/engine/cuda_kernels.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/loop_index.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_check.h"
#include "torch_core/csrc/aten/engine/index_loop.h"

namespace torch_cuda::engine {

namespace {

using torch_core::engine::IndexCall;
using torch_core::engine::IndexKind;
using torch_core::engine::kMaxOperands;

struct IndexParams {
  loop::LoopParams<kMaxOperands> loop;
  c10::ScalarType dtypes[kMaxOperands];
  IndexCall call;
  int itemsize;
};

__device__ void atomic_accumulate(c10::ScalarType dtype, char* dst, const char* src) {
  switch (dtype) {
    case c10::kFloat:
      atomicAdd(reinterpret_cast<float*>(dst), *reinterpret_cast<const float*>(src));
      break;
    case c10::kDouble:
      atomicAdd(reinterpret_cast<double*>(dst), *reinterpret_cast<const double*>(src));
      break;
    case c10::kHalf:
      atomicAdd(reinterpret_cast<__half*>(dst), *reinterpret_cast<const __half*>(src));
      break;
    case c10::kBFloat16:
      atomicAdd(reinterpret_cast<__nv_bfloat16*>(dst), *reinterpret_cast<const __nv_bfloat16*>(src));
      break;
    case c10::kInt:
      atomicAdd(reinterpret_cast<int*>(dst), *reinterpret_cast<const int*>(src));
      break;
    case c10::kLong:  // two's complement: the unsigned add is the signed one
      atomicAdd(reinterpret_cast<unsigned long long*>(dst),
                static_cast<unsigned long long>(*reinterpret_cast<const long long*>(src)));
      break;
    case c10::kComplexFloat:
      atomicAdd(reinterpret_cast<float*>(dst), reinterpret_cast<const float*>(src)[0]);
      atomicAdd(reinterpret_cast<float*>(dst) + 1, reinterpret_cast<const float*>(src)[1]);
      break;
    case c10::kComplexDouble:
      atomicAdd(reinterpret_cast<double*>(dst), reinterpret_cast<const double*>(src)[0]);
      atomicAdd(reinterpret_cast<double*>(dst) + 1, reinterpret_cast<const double*>(src)[1]);
      break;
    default:
      CUDA_KERNEL_ASSERT(false && "index_put_ accumulate: dtype checked on the host");
  }
}

__global__ void index_kernel(IndexParams p, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(blockDim.x) * gridDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    std::int64_t off[kMaxOperands];
    loop::offsets(p.loop, i, off);
    char* ptrs[kMaxOperands];
    for (int op = 0; op < kMaxOperands; ++op) ptrs[op] = p.loop.data[op] + off[op];
    std::int64_t offset = 0, bad = 0, bad_size = 0;
    const bool in_range = torch_core::engine::index_offset(p.call, p.dtypes, ptrs, offset, bad, bad_size);
    CUDA_KERNEL_ASSERT(in_range && "index out of bounds");
    if (!in_range) return;
    switch (p.call.kind) {
      case IndexKind::kGather:
        for (int b = 0; b < p.itemsize; ++b) ptrs[0][b] = ptrs[1][offset + b];
        break;
      case IndexKind::kPut:
        for (int b = 0; b < p.itemsize; ++b) ptrs[0][offset + b] = ptrs[1][b];
        break;
      case IndexKind::kAccumulate:
        atomic_accumulate(p.dtypes[0], ptrs[0] + offset, ptrs[1]);
        break;
    }
  }
}

bool has_atomic_add(c10::ScalarType dtype) {
  switch (dtype) {
    case c10::kFloat:
    case c10::kDouble:
    case c10::kHalf:
    case c10::kBFloat16:
    case c10::kInt:
    case c10::kLong:
    case c10::kComplexFloat:
    case c10::kComplexDouble:
      return true;
    default:
      return false;
  }
}

}  // namespace

void run_index(const IndexCall& call, const torch_core::engine::OperandLoop& operands,
               torch_core::StreamHandle stream) {
  TORCH_CHECK_NOT_IMPLEMENTED(call.kind != IndexKind::kAccumulate || has_atomic_add(operands.dtypes[0]),
                              "index_put_ with accumulate=True is not implemented for '",
                              c10::toString(operands.dtypes[0]), "' on the CUDA engine yet");
  const std::int64_t n = operands.numel();
  if (n == 0) return;
  IndexParams params{};
  params.loop = loop::make_params(operands.loop);
  for (int i = 0; i < kMaxOperands; ++i) params.dtypes[i] = operands.dtypes[i];
  params.call = call;
  params.itemsize = static_cast<int>(c10::elementSize(operands.dtypes[0]));
  constexpr int kThreads = 256;
  constexpr std::int64_t kMaxBlocks = 65535;
  const std::int64_t wanted = (n + kThreads - 1) / kThreads;
  const auto blocks = static_cast<unsigned>(wanted < kMaxBlocks ? wanted : kMaxBlocks);
  index_kernel<<<blocks, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(params, n);
  TORCH_CUDA_CHECK(cudaGetLastError());
}

}  // namespace torch_cuda::engine
