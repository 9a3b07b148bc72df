// The CUDA engine's segmented sort (torch_core/aten/engine/sort_call.h): CUB's segmented
// radix sort, stable, of (radix key, position) pairs, as stock's sort. A first kernel keeps
// a copy of the keys and writes each one's radix key (radix_key.h: NaN above +inf, -0 equal
// to +0, complemented for descending) and position into scratch; CUB sorts those, ascending,
// writing the positions into the call's indices; a last kernel writes each segment's keys
// in that order from the copy, so every value keeps its bits (-0's sign, NaN's payload).
#include <cub/device/device_segmented_radix_sort.cuh>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include <c10/core/ScalarType.h>
#include <c10/util/Exception.h>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/engine/cuda_executor.cuh"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/engine/cuda_kernels.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/engine/radix_key.h"

namespace torch_cuda::engine {

namespace {

using torch_core::engine::SortCall;

// Scratch: the keys' copy, their radix keys, the positions, then CUB's temporary storage.
template <typename U>
struct ScratchLayout {
  std::size_t keys_bytes;
  std::size_t positions_bytes;
  explicit ScratchLayout(const SortCall& call)
      : keys_bytes(aligned_scratch(sizeof(U) * call.segments * call.segment_size)),
        positions_bytes(aligned_scratch(sizeof(std::int64_t) * call.segments * call.segment_size)) {}
  std::size_t radix_offset() const { return keys_bytes; }
  std::size_t positions_offset() const { return 2 * keys_bytes; }
  std::size_t cub_offset() const { return 2 * keys_bytes + positions_bytes; }
};

template <typename U>
__global__ void prepare_kernel(const U* keys, U* copy, U* radix, std::int64_t* positions, std::int64_t n,
                               std::int64_t segment_size, RadixFormat format) {
  const std::int64_t stride = static_cast<std::int64_t>(blockDim.x) * gridDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    copy[i] = keys[i];
    radix[i] = radix_key(keys[i], format);
    positions[i] = i % segment_size;
  }
}

// keys[i] = copy[its segment's start + indices[i]]: the sorted keys, bit for bit.
template <typename U>
__global__ void gather_kernel(const U* copy, const std::int64_t* indices, U* keys, std::int64_t n,
                              std::int64_t segment_size) {
  const std::int64_t stride = static_cast<std::int64_t>(blockDim.x) * gridDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    keys[i] = copy[i - i % segment_size + indices[i]];
  }
}

// CUB's ascending sort of the radix keys, the positions following them into the call's
// indices and the sorted radix keys into its keys (overwritten by gather_kernel); with
// d_temp null it only sizes the temporary storage.
template <typename U>
cudaError_t cub_sort(const SortCall& call, void* d_temp, std::size_t& temp_bytes, const U* radix,
                     const std::int64_t* positions, cudaStream_t stream) {
  const std::int64_t n = call.segments * call.segment_size;
  return cub::DeviceSegmentedRadixSort::SortPairs(d_temp, temp_bytes, radix, reinterpret_cast<U*>(call.keys),
                                                  positions, call.indices, n, call.segments, call.segment_offsets,
                                                  call.segment_offsets + 1, 0, static_cast<int>(sizeof(U) * 8),
                                                  stream);
}

template <typename U>
std::size_t scratch_bytes(const SortCall& call) {
  std::size_t temp_bytes = 0;
  TORCH_CUDA_CHECK(cub_sort<U>(call, nullptr, temp_bytes, nullptr, nullptr, nullptr));
  return ScratchLayout<U>(call).cub_offset() + temp_bytes;
}

template <typename U>
void sort(const SortCall& call, const RadixFormat& format, cudaStream_t stream) {
  const ScratchLayout<U> layout(call);
  char* scratch = static_cast<char*>(call.scratch);
  U* copy = reinterpret_cast<U*>(scratch);
  U* radix = reinterpret_cast<U*>(scratch + layout.radix_offset());
  auto* positions = reinterpret_cast<std::int64_t*>(scratch + layout.positions_offset());
  U* keys = reinterpret_cast<U*>(call.keys);
  const std::int64_t n = call.segments * call.segment_size;
  prepare_kernel<U><<<grid_blocks(n), kThreads, 0, stream>>>(keys, copy, radix, positions, n, call.segment_size,
                                                              format);
  TORCH_CUDA_CHECK(cudaGetLastError());
  std::size_t temp_bytes = call.scratch_bytes - layout.cub_offset();
  TORCH_CUDA_CHECK(cub_sort<U>(call, scratch + layout.cub_offset(), temp_bytes, radix, positions, stream));
  gather_kernel<U><<<grid_blocks(n), kThreads, 0, stream>>>(copy, call.indices, keys, n, call.segment_size);
  TORCH_CUDA_CHECK(cudaGetLastError());
}

// Calls visit(U{}, format) with the unsigned integer of the call's element width and the
// format of its dtype's bits.
template <typename Visit>
void visit_radix_type(const SortCall& call, Visit&& visit) {
  RadixFormat format;
  TORCH_CHECK_NOT_IMPLEMENTED(radix_format(call.dtype, call.descending, format), "\"sort\" not implemented for '",
                              c10::toString(call.dtype), "'");
  switch (c10::elementSize(call.dtype)) {
    case 1: return visit(std::uint8_t{}, format);
    case 2: return visit(std::uint16_t{}, format);
    case 4: return visit(std::uint32_t{}, format);
    default: return visit(std::uint64_t{}, format);
  }
}

}  // namespace

std::size_t sort_scratch_bytes(const SortCall& call) {
  std::size_t bytes = 0;
  visit_radix_type(call, [&](auto bits, const RadixFormat&) { bytes = scratch_bytes<decltype(bits)>(call); });
  return bytes;
}

void run_sort(const SortCall& call, torch_core::StreamHandle stream) {
  visit_radix_type(call, [&](auto bits, const RadixFormat& format) {
    sort<decltype(bits)>(call, format, static_cast<cudaStream_t>(stream));
  });
}

}  // namespace torch_cuda::engine
