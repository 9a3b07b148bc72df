// Helpers of the composite CUDA kernels: they compute as stock's CUDA kernels accumulate,
// Half and BFloat16 in float.
#pragma once

#include <ATen/core/Tensor.h>
#include <ATen/ops/_to_copy.h>
#include <c10/core/ScalarType.h>

namespace torch_core::composite {

inline bool is_reduced_float(c10::ScalarType type) { return type == c10::kHalf || type == c10::kBFloat16; }

// `t` in its opmath dtype: float for Half and BFloat16, itself otherwise.
inline at::Tensor opmath(const at::Tensor& t) {
  return is_reduced_float(t.scalar_type()) ? at::_to_copy(t, t.options().dtype(c10::kFloat)) : t;
}

}  // namespace torch_core::composite
