// The element loop of advanced indexing, written once for the host engine and the CUDA
// engine: the byte offset an element's index operands select, and the accumulate of a
// put, per dtype.
#pragma once

#include <cstdint>

#include <c10/core/DynamicCast.h>
#include <c10/core/ScalarType.h>

#include "torch_core/csrc/aten/engine/index_call.h"
#include "torch_core/csrc/aten/host_device.h"

namespace torch_core::engine {

// The index of operand `2 + k` at `p`, as int64 (index tensors are int64 or int32).
TORCH_CORE_HOST_DEVICE inline int64_t load_index(c10::ScalarType dtype, const char* p) {
  return dtype == c10::kInt ? static_cast<int64_t>(*reinterpret_cast<const int32_t*>(p))
                            : *reinterpret_cast<const int64_t*>(p);
}

// Sums index_k * strides[k]; false (and `bad`, `bad_size` set) for an index outside
// [-size, size), or outside [0, size) when the call does not wrap negative indices.
template <typename Pointers>
TORCH_CORE_HOST_DEVICE bool index_offset(const IndexCall& call, const c10::ScalarType* dtypes, const Pointers& p,
                                         int64_t& offset, int64_t& bad, int64_t& bad_size) {
  offset = 0;
  for (int k = 0; k < call.nindices; ++k) {
    int64_t index = load_index(dtypes[2 + k], p[2 + k]);
    const int64_t size = call.sizes[k];
    if (index < (call.wrap_negative ? -size : 0) || index >= size) {
      bad = index;
      bad_size = size;
      return false;
    }
    if (index < 0) index += size;
    offset += index * call.strides[k];
  }
  return true;
}

}  // namespace torch_core::engine
