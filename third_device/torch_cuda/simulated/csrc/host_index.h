// Walking a cuDNN plan's tensor on the host, for the simulated executors: an index over N,
// C and the spatial dimensions, the element count, an index's element offset through a
// descriptor's strides, the next position in row-major order, and an element read as
// double or written rounded once from double to its type.
#pragma once

#include <array>
#include <cstdint>
#include <type_traits>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_tensors.h"

namespace torch_cuda::simulated {

using Index = std::array<std::int64_t, cudnn::kMaxDims>;

// The number of elements of a tensor of `sizes` (`dims` of them).
inline std::int64_t element_count(const std::array<int, cudnn::kMaxDims>& sizes, int dims) {
  std::int64_t count = 1;
  for (int d = 0; d < dims; ++d) count *= sizes[d];
  return count;
}

// The element offset of `index` in a tensor of `strides`.
template <typename Strides>
std::int64_t offset_of(const Index& index, const Strides& strides, int dims) {
  std::int64_t offset = 0;
  for (int d = 0; d < dims; ++d) offset += index[d] * static_cast<std::int64_t>(strides[d]);
  return offset;
}

// The next row-major position over `sizes`; false after the last.
inline bool advance(Index& index, const std::array<int, cudnn::kMaxDims>& sizes, int dims) {
  for (int d = dims - 1; d >= 0; --d) {
    if (++index[d] < sizes[d]) return true;
    index[d] = 0;
  }
  return false;
}

template <typename T>
double load_element(const void* base, std::int64_t offset) {
  return static_cast<double>(static_cast<const T*>(base)[offset]);
}

// Through float for the 16-bit types, as a GPU computing in float rounds.
template <typename T>
T rounded(double value) {
  if constexpr (std::is_same_v<T, double>) {
    return value;
  } else {
    return static_cast<T>(static_cast<float>(value));
  }
}

template <typename T>
void store_element(void* base, std::int64_t offset, double value) {
  static_cast<T*>(base)[offset] = rounded<T>(value);
}

}  // namespace torch_cuda::simulated
