// torch_cuda's native elementwise and reduction kernels on the GPU, torch-free: what the
// CUDA-key operators launch after building their loops with torch_core::make_loop
// (tensor_loop.h) and choosing the dtype. Host C++ may include this header; the kernels
// are instantiated in the .cu files beside it (cuda_loop.cuh over loop_ops.h's functors,
// the same functors the host loops run).
//
// Supported instantiations (others are link errors, by design):
//   add, sub, mul          float, double, int32_t, int64_t   out = a op alpha * b
//   div                    float, double                     true division
//   fill_bytes, copy_bytes itemsize 1, 2, 4, 8, 16           any dtype, by width
//   sum                    <float,float> <double,double> <int64_t,int64_t> <int64_t,int32_t>
//                          (Out, In; float accumulates in float, as ATen's CUDA sum)
//   amax                   float, double, int32_t, int64_t   NaN propagates
// Every launcher returns once the work is queued on `stream` and throws CudaError
// (cuda_check.h) if the launch fails. Zero elements launch nothing.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "torch_core/aten/kernel_loop.h"

namespace torch_cuda::kernels {

using torch_core::loop::StridedLoop;

// Operand 0: out, 1: a, 2: b.
template <typename T>
void add(const StridedLoop<3>& loop, T alpha, cudaStream_t stream);
template <typename T>
void sub(const StridedLoop<3>& loop, T alpha, cudaStream_t stream);
template <typename T>
void mul(const StridedLoop<3>& loop, cudaStream_t stream);
template <typename T>
void div(const StridedLoop<3>& loop, cudaStream_t stream);

// Every element of operand 0 becomes the `itemsize` bytes at `pattern` (host memory).
void fill_bytes(const StridedLoop<1>& loop, const void* pattern, std::size_t itemsize, cudaStream_t stream);
// Operand 0 = operand 1, `itemsize` bytes per element (same-dtype strided copy).
void copy_bytes(const StridedLoop<2>& loop, std::size_t itemsize, cudaStream_t stream);

// kernel_loop.h's reduce layout: `outer` operand 0 the outputs, operand 1 where each
// output's slice starts; `inner` the strides of the reduced dimensions. An empty slice
// gives 0 (sum) or the lowest value, -inf for floats (amax: torch raises for an empty
// amax before it gets here).
template <typename Out, typename In>
void sum(const StridedLoop<2>& outer, const StridedLoop<1>& inner, cudaStream_t stream);
template <typename T>
void amax(const StridedLoop<2>& outer, const StridedLoop<1>& inner, cudaStream_t stream);

}  // namespace torch_cuda::kernels
