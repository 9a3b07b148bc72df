// The CUDA engine's segmented sort (torch_core/aten/engine/sort_call.h): CUB's segmented
// radix sort, stable, of (key, position) pairs, as stock's sort. A first kernel copies the
// keys into scratch with every NaN made the positive quiet NaN, whose bits radix-sort
// above +inf (a NaN with its sign bit set would sort below -inf), and numbers each key's
// position; CUB then writes the sorted keys and positions into the call's buffers.
#include <cub/device/device_segmented_radix_sort.cuh>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <c10/core/ScalarType.h>
#include <c10/util/Exception.h>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/engine/cuda_executor.cuh"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/engine/cuda_kernels.h"

namespace torch_cuda::engine {

namespace {

using torch_core::engine::SortCall;

// Scratch: the canonical keys, the positions, then CUB's temporary storage.
template <typename K>
struct ScratchLayout {
  std::size_t keys_bytes;
  std::size_t positions_bytes;
  explicit ScratchLayout(const SortCall& call)
      : keys_bytes(aligned_scratch(sizeof(K) * call.segments * call.segment_size)),
        positions_bytes(aligned_scratch(sizeof(std::int64_t) * call.segments * call.segment_size)) {}
  std::size_t cub_offset() const { return keys_bytes + positions_bytes; }
};

template <typename K>
__device__ bool is_nan(K key) {
  if constexpr (std::is_floating_point_v<K>) {
    return key != key;
  } else if constexpr (std::is_same_v<K, __half>) {
    return __hisnan(key);
  } else if constexpr (std::is_same_v<K, __nv_bfloat16>) {
    return __hisnan(key);
  } else {
    return false;
  }
}

template <typename K>
__global__ void prepare_kernel(const K* keys, K* canonical, std::int64_t* positions, std::int64_t n,
                               std::int64_t segment_size) {
  const std::int64_t stride = static_cast<std::int64_t>(blockDim.x) * gridDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const K key = keys[i];
    if constexpr (std::is_floating_point_v<K>) {
      canonical[i] = is_nan(key) ? std::numeric_limits<K>::quiet_NaN() : key;
    } else if constexpr (std::is_same_v<K, __half>) {
      canonical[i] = is_nan(key) ? __ushort_as_half(0x7e00) : key;
    } else if constexpr (std::is_same_v<K, __nv_bfloat16>) {
      canonical[i] = is_nan(key) ? __ushort_as_bfloat16(0x7fc0) : key;
    } else {
      canonical[i] = key;
    }
    positions[i] = i % segment_size;
  }
}

// CUB's sort into the call's buffers; with d_temp null it only sizes the temporary storage.
template <typename K>
cudaError_t cub_sort(const SortCall& call, void* d_temp, std::size_t& temp_bytes, const K* keys_in,
                     const std::int64_t* positions_in, cudaStream_t stream) {
  const std::int64_t n = call.segments * call.segment_size;
  K* keys_out = reinterpret_cast<K*>(call.keys);
  if (call.descending) {
    return cub::DeviceSegmentedRadixSort::SortPairsDescending(
        d_temp, temp_bytes, keys_in, keys_out, positions_in, call.indices, n, call.segments, call.segment_offsets,
        call.segment_offsets + 1, 0, static_cast<int>(sizeof(K) * 8), stream);
  }
  return cub::DeviceSegmentedRadixSort::SortPairs(d_temp, temp_bytes, keys_in, keys_out, positions_in, call.indices,
                                                  n, call.segments, call.segment_offsets, call.segment_offsets + 1, 0,
                                                  static_cast<int>(sizeof(K) * 8), stream);
}

template <typename K>
std::size_t scratch_bytes(const SortCall& call) {
  std::size_t temp_bytes = 0;
  TORCH_CUDA_CHECK(cub_sort<K>(call, nullptr, temp_bytes, nullptr, nullptr, nullptr));
  return ScratchLayout<K>(call).cub_offset() + temp_bytes;
}

template <typename K>
void sort(const SortCall& call, cudaStream_t stream) {
  const ScratchLayout<K> layout(call);
  char* scratch = static_cast<char*>(call.scratch);
  K* canonical = reinterpret_cast<K*>(scratch);
  auto* positions = reinterpret_cast<std::int64_t*>(scratch + layout.keys_bytes);
  const std::int64_t n = call.segments * call.segment_size;
  prepare_kernel<K><<<grid_blocks(n), kThreads, 0, stream>>>(reinterpret_cast<const K*>(call.keys), canonical,
                                                              positions, n, call.segment_size);
  TORCH_CUDA_CHECK(cudaGetLastError());
  std::size_t temp_bytes = call.scratch_bytes - layout.cub_offset();
  TORCH_CUDA_CHECK(cub_sort<K>(call, scratch + layout.cub_offset(), temp_bytes, canonical, positions, stream));
}

// Calls visit(K{}) with CUB's key type for `dtype` (bool as its byte, Half and BFloat16
// as CUDA's own types, which CUB's radix traits know).
template <typename Visit>
void visit_key_type(c10::ScalarType dtype, Visit&& visit) {
  switch (dtype) {
    case c10::kBool: return visit(std::uint8_t{});
    case c10::kByte: return visit(std::uint8_t{});
    case c10::kChar: return visit(std::int8_t{});
    case c10::kShort: return visit(std::int16_t{});
    case c10::kInt: return visit(std::int32_t{});
    case c10::kLong: return visit(std::int64_t{});
    case c10::kHalf: return visit(__half{});
    case c10::kBFloat16: return visit(__nv_bfloat16{});
    case c10::kFloat: return visit(float{});
    case c10::kDouble: return visit(double{});
    default:
      TORCH_CHECK_NOT_IMPLEMENTED(false, "\"sort\" not implemented for '", c10::toString(dtype), "'");
  }
}

}  // namespace

std::size_t sort_scratch_bytes(const SortCall& call) {
  std::size_t bytes = 0;
  visit_key_type(call.dtype, [&](auto key) { bytes = scratch_bytes<decltype(key)>(call); });
  return bytes;
}

void run_sort(const SortCall& call, torch_core::StreamHandle stream) {
  visit_key_type(call.dtype, [&](auto key) { sort<decltype(key)>(call, static_cast<cudaStream_t>(stream)); });
}

}  // namespace torch_cuda::engine
