// The CUDA engine's segmented scan (torch_core/aten/engine/scan_call.h): CUB's inclusive
// scan by key, the key of an element being its segment's number, written by a first
// kernel into scratch ahead of CUB's temporary storage.
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include <c10/core/ScalarType.h>
#include <c10/util/Exception.h>
#include <c10/util/complex.h>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/engine/cuda_executor.cuh"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/engine/cuda_kernels.h"

namespace torch_cuda::engine {

namespace {

using torch_core::engine::ScanCall;
using torch_core::engine::ScanOp;

std::size_t keys_bytes(const ScanCall& call) {
  return aligned_scratch(sizeof(std::int64_t) * call.segments * call.segment_size);
}

__global__ void segment_keys_kernel(std::int64_t* keys, std::int64_t n, std::int64_t segment_size) {
  const std::int64_t stride = static_cast<std::int64_t>(blockDim.x) * gridDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    keys[i] = i / segment_size;
  }
}

struct Sum {
  template <typename T>
  __device__ T operator()(const T& a, const T& b) const { return a + b; }
};

struct Product {
  template <typename T>
  __device__ T operator()(const T& a, const T& b) const { return a * b; }
};

// CUB's scan of the call's buffers; with d_temp null it only sizes the temporary storage.
template <typename T, typename Op>
cudaError_t cub_scan(const ScanCall& call, void* d_temp, std::size_t& temp_bytes, const std::int64_t* keys,
                     cudaStream_t stream) {
  const std::int64_t n = call.segments * call.segment_size;
  return cub::DeviceScan::InclusiveScanByKey(d_temp, temp_bytes, keys, reinterpret_cast<const T*>(call.input),
                                             reinterpret_cast<T*>(call.output), Op{}, n,
                                             ::cuda::std::equal_to<>{}, stream);
}

template <typename T, typename Op>
std::size_t scratch_bytes(const ScanCall& call) {
  std::size_t temp_bytes = 0;
  TORCH_CUDA_CHECK((cub_scan<T, Op>(call, nullptr, temp_bytes, nullptr, nullptr)));
  return keys_bytes(call) + temp_bytes;
}

template <typename T, typename Op>
void scan(const ScanCall& call, cudaStream_t stream) {
  auto* keys = static_cast<std::int64_t*>(call.scratch);
  const std::int64_t n = call.segments * call.segment_size;
  segment_keys_kernel<<<grid_blocks(n), kThreads, 0, stream>>>(keys, n, call.segment_size);
  TORCH_CUDA_CHECK(cudaGetLastError());
  std::size_t temp_bytes = call.scratch_bytes - keys_bytes(call);
  TORCH_CUDA_CHECK((cub_scan<T, Op>(call, static_cast<char*>(call.scratch) + keys_bytes(call), temp_bytes, keys,
                                    stream)));
}

// Calls visit(T{}, Op{}) for the call's dtype and operation.
template <typename Visit>
void visit_scan(const ScanCall& call, Visit&& visit) {
  auto with_op = [&](auto value) {
    if (call.op == ScanOp::kSum) {
      visit(value, Sum{});
    } else {
      visit(value, Product{});
    }
  };
  switch (call.dtype) {
    case c10::kLong: return with_op(std::int64_t{});
    case c10::kFloat: return with_op(float{});
    case c10::kDouble: return with_op(double{});
    case c10::kComplexFloat: return with_op(c10::complex<float>{});
    case c10::kComplexDouble: return with_op(c10::complex<double>{});
    default:
      TORCH_CHECK_NOT_IMPLEMENTED(false, "\"scan\" not implemented for '", c10::toString(call.dtype), "'");
  }
}

}  // namespace

std::size_t scan_scratch_bytes(const ScanCall& call) {
  std::size_t bytes = 0;
  visit_scan(call, [&](auto value, auto op) { bytes = scratch_bytes<decltype(value), decltype(op)>(call); });
  return bytes;
}

void run_scan(const ScanCall& call, torch_core::StreamHandle stream) {
  visit_scan(call, [&](auto value, auto op) {
    scan<decltype(value), decltype(op)>(call, static_cast<cudaStream_t>(stream));
  });
}

}  // namespace torch_cuda::engine
