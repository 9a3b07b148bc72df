// The index arithmetic of the CUDA loops (cuda_loop.cuh), as plain host+device C++ with no
// CUDA header, so the CPU tests check it against kernel_loop.h's host iteration order
// without a GPU (tests/gpu/cuda_loop_test.cpp).
//
// A kernel_loop.h StridedLoop is made of std::arrays, whose members are host functions;
// a kernel gets a LoopParams instead: the same sizes and byte strides as C arrays, a
// trivially copyable kernel argument (sizeof(LoopParams<3>) is 536 bytes, far below
// the 4 KiB kernel-parameter limit).
#pragma once

#include <cstdint>

#include "torch_core/csrc/aten/host_device.h"
#include "torch_core/csrc/aten/kernel_loop.h"

namespace torch_cuda::loop {

constexpr int kMaxDims = torch_core::loop::kMaxDims;

template <int N>
struct LoopParams {
  int ndim;
  std::int64_t sizes[kMaxDims];            // outermost first, as in kernel_loop.h
  std::int64_t strides[kMaxDims][N];       // bytes, per dimension and operand
  char* data[N];
};

// The loop as kernel parameters, after coalescing (so contiguous operands become one
// dimension and take the contiguous fast path).
template <int N>
LoopParams<N> make_params(torch_core::loop::StridedLoop<N> loop) {
  loop.coalesce();
  LoopParams<N> params{};
  params.ndim = loop.ndim;
  for (int d = 0; d < loop.ndim; ++d) {
    params.sizes[d] = loop.sizes[d];
    for (int op = 0; op < N; ++op) params.strides[d][op] = loop.strides[op][d];
  }
  for (int op = 0; op < N; ++op) params.data[op] = loop.data[op];
  return params;
}

// Byte offsets of linear index `linear` (innermost dimension fastest: the order in which
// kernel_loop.h's for_each visits elements) for every operand.
template <int N>
TORCH_CORE_HOST_DEVICE inline void offsets(const LoopParams<N>& p, std::int64_t linear,
                                           std::int64_t (&out)[N]) {
  for (int op = 0; op < N; ++op) out[op] = 0;
  for (int d = p.ndim - 1; d >= 0; --d) {
    const std::int64_t size = p.sizes[d];
    const std::int64_t index = linear % size;
    linear /= size;
    for (int op = 0; op < N; ++op) out[op] += index * p.strides[d][op];
  }
}

// True when every operand is contiguous for its element size (after coalescing: one
// dimension whose stride is the operand's itemsize, or no dimension at all).
template <int N>
bool is_contiguous(const LoopParams<N>& p, const std::int64_t (&itemsizes)[N]) {
  if (p.ndim == 0) return true;
  if (p.ndim != 1) return false;
  for (int op = 0; op < N; ++op) {
    if (p.strides[0][op] != itemsizes[op]) return false;
  }
  return true;
}

template <int N>
std::int64_t numel(const LoopParams<N>& p) {
  std::int64_t n = 1;
  for (int d = 0; d < p.ndim; ++d) n *= p.sizes[d];
  return n;
}

// How a reduction is split: `chunks` blocks per output element, each folding one
// contiguous range of `chunk_size` slice elements. With chunks > 1 a second pass folds
// each output's partials (deterministic: no atomics, fixed grouping for a given shape).
struct ReducePlan {
  std::int64_t chunks;
  std::int64_t chunk_size;
};

constexpr int kReduceThreads = 256;
constexpr std::int64_t kMaxReduceChunks = 1024;  // the second pass folds them in one block
constexpr std::int64_t kTargetReduceBlocks = 1024;

inline ReducePlan plan_reduce(std::int64_t outputs, std::int64_t slice) {
  // Few outputs with long slices (a full sum) would leave most of the GPU idle with one
  // block per output: split slices until there are about kTargetReduceBlocks blocks,
  // giving each thread at least 8 elements.
  std::int64_t chunks = 1;
  if (outputs > 0 && outputs < kTargetReduceBlocks && slice > 0) {
    const std::int64_t by_work = (slice + kReduceThreads * 8 - 1) / (kReduceThreads * 8);
    const std::int64_t by_blocks = (kTargetReduceBlocks + outputs - 1) / outputs;
    chunks = by_work < by_blocks ? by_work : by_blocks;
    if (chunks > kMaxReduceChunks) chunks = kMaxReduceChunks;
    if (chunks < 1) chunks = 1;
  }
  const std::int64_t chunk_size = slice > 0 ? (slice + chunks - 1) / chunks : 0;
  // Rounding up can leave trailing chunks empty; drop them.
  if (chunk_size > 0) chunks = (slice + chunk_size - 1) / chunk_size;
  return {chunks, chunk_size};
}

}  // namespace torch_cuda::loop
