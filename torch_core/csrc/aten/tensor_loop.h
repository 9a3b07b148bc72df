// Building kernel loops (kernel_loop.h) from tensors: the torch-facing half of the loop
// API, used by a backend's kernels before they launch.
#pragma once

#include <array>
#include <cstdint>

#include <ATen/core/TensorBase.h>
#include <c10/util/ArrayRef.h>
#include <c10/util/Exception.h>

#include "torch_core/aten/kernel_loop.h"

namespace torch_core {

// A loop over `shape` with one operand per tensor, each broadcast to `shape` (a missing
// or size-1 dimension gets stride 0). Operand 0 is conventionally the output.
template <int N>
loop::StridedLoop<N> make_loop(c10::IntArrayRef shape, const std::array<const at::TensorBase*, N>& tensors) {
  TORCH_CHECK(static_cast<int>(shape.size()) <= loop::kMaxDims, "kernel loops support at most ",
              loop::kMaxDims, " dimensions, got ", shape.size());
  loop::StridedLoop<N> result;
  result.ndim = static_cast<int>(shape.size());
  for (int d = 0; d < result.ndim; ++d) result.sizes[d] = shape[d];
  for (int op = 0; op < N; ++op) {
    const at::TensorBase& t = *tensors[op];
    const int offset = result.ndim - static_cast<int>(t.dim());
    TORCH_CHECK(offset >= 0, "operand of ", t.dim(), " dimensions cannot broadcast to ", shape);
    const auto itemsize = static_cast<int64_t>(t.element_size());
    result.data[op] = static_cast<char*>(const_cast<void*>(t.const_data_ptr()));
    for (int d = 0; d < result.ndim; ++d) {
      const int td = d - offset;
      if (td < 0 || t.size(td) == 1) {
        TORCH_CHECK(td < 0 || t.size(td) == shape[d] || t.size(td) == 1, "size mismatch");
        result.strides[op][d] = 0;
      } else {
        TORCH_CHECK(t.size(td) == shape[d], "operand size ", t.sizes(), " does not match ", shape);
        result.strides[op][d] = t.stride(td) * itemsize;
      }
    }
  }
  result.coalesce();
  return result;
}

}  // namespace torch_core
