// Building kernel loops (kernel_loop.h) from tensors: the torch-facing half of the loop
// API, used by a backend's kernels before they launch.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <ATen/core/TensorBase.h>
#include <c10/core/WrapDimMinimal.h>
#include <c10/util/ArrayRef.h>
#include <c10/util/Exception.h>
#include <c10/util/OptionalArrayRef.h>

#include "torch_core/csrc/aten/kernel_loop.h"

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

// A reduction of `self` over `dim`, as ATen's sum/amax take it: which dimensions are
// reduced, and the output's shape. No dims (None or []) reduces every dimension; a 0-dim
// tensor accepts dim 0 / -1 and has nothing to reduce (its `reduced` is empty).
struct Reduction {
  std::vector<bool> reduced;       // per dimension of self
  std::vector<int64_t> out_shape;  // kept dimensions, and size 1 for reduced ones with keepdim
};

inline Reduction reduction_of(const at::TensorBase& self, c10::OptionalIntArrayRef dim, bool keepdim) {
  Reduction result;
  result.reduced.assign(static_cast<std::size_t>(self.dim()), !dim.has_value() || dim->empty());
  if (dim.has_value()) {
    for (const int64_t d : *dim) {
      const auto wrapped = static_cast<std::size_t>(c10::maybe_wrap_dim(d, self.dim()));
      if (self.dim() == 0) continue;
      TORCH_CHECK(!result.reduced[wrapped], "dim ", wrapped, " appears multiple times in the list of dims");
      result.reduced[wrapped] = true;
    }
  }
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (!result.reduced[static_cast<std::size_t>(d)]) result.out_shape.push_back(self.size(d));
    else if (keepdim) result.out_shape.push_back(1);
  }
  return result;
}

// kernel_loop.h's reduce layout for `out` (a fresh contiguous tensor of the reduction's
// out_shape) and `self`: `outer` walks the kept dimensions (operand 0 the output,
// operand 1 where each output's input slice starts), `inner` the reduced dimensions of
// the input (its data pointer unused). The same loops feed the host reduce and a device's.
struct ReduceLoops {
  loop::StridedLoop<2> outer;
  loop::StridedLoop<1> inner;
};

inline ReduceLoops make_reduce_loops(const at::TensorBase& out, const at::TensorBase& self,
                                     const std::vector<bool>& reduced) {
  TORCH_CHECK(self.dim() <= loop::kMaxDims, "kernel loops support at most ", loop::kMaxDims,
              " dimensions, got ", self.dim());
  ReduceLoops loops;
  const auto in_itemsize = static_cast<int64_t>(self.element_size());
  loops.outer.data[0] = static_cast<char*>(const_cast<void*>(out.const_data_ptr()));
  loops.outer.data[1] = static_cast<char*>(const_cast<void*>(self.const_data_ptr()));
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (reduced[static_cast<std::size_t>(d)]) {
      loops.inner.sizes[loops.inner.ndim] = self.size(d);
      loops.inner.strides[0][loops.inner.ndim] = self.stride(d) * in_itemsize;
      ++loops.inner.ndim;
    } else {
      kept.push_back(d);
    }
  }
  int64_t out_stride = static_cast<int64_t>(out.element_size());
  loops.outer.ndim = static_cast<int>(kept.size());
  for (int i = loops.outer.ndim - 1; i >= 0; --i) {
    const int64_t d = kept[static_cast<std::size_t>(i)];
    loops.outer.sizes[i] = self.size(d);
    loops.outer.strides[0][i] = out_stride;
    loops.outer.strides[1][i] = self.stride(d) * in_itemsize;
    out_stride *= self.size(d);
  }
  return loops;
}

}  // namespace torch_core
