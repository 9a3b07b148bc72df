// What the CUDA key's cuDNN operators share: what they hand their plans from a tensor (its
// data type in the plans' terms, its sizes and strides), and how a plan's refusal reaches
// Python.
#pragma once

#include <stdexcept>

#include <ATen/core/Tensor.h>
#include <c10/core/ScalarType.h>
#include <c10/util/Exception.h>
#include <c10/util/irange.h>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_tensors.h"

namespace torch_cuda::native {

// The plans' data type of `type`; anything cuDNN does not take is refused, naming `op`, with
// stock's message first (getCudnnDataType's), so code matching stock's error still does.
inline cudnn::DataType cudnn_data_type_of(c10::ScalarType type, const char* op) {
  switch (type) {
    case c10::kHalf:
      return cudnn::DataType::kHalf;
    case c10::kBFloat16:
      return cudnn::DataType::kBFloat16;
    case c10::kFloat:
      return cudnn::DataType::kFloat;
    case c10::kDouble:
      return cudnn::DataType::kDouble;
    default:
      break;
  }
  TORCH_CHECK(false, "getCudnnDataTypeFromScalarType() not supported for ", type, ": ", op,
              " takes float, double, half and bfloat16 tensors, not ", type,
              "; convert its tensors (e.g. .float()) first");
}

// Copies t's sizes and strides into arrays of at least t.dim() entries.
template <typename Array>
void copy_shape(const at::Tensor& t, Array& sizes, Array& strides) {
  for (const auto d : c10::irange(t.dim())) {
    sizes[d] = t.size(d);
    strides[d] = t.stride(d);
  }
}

inline cudnn::TensorGeometry geometry(const at::Tensor& t) {
  cudnn::TensorGeometry g;
  copy_shape(t, g.sizes, g.strides);
  return g;
}

// What `plan()` returns; a plan's refusal (std::invalid_argument, whose message names the
// plan and what it refuses) is raised as a RuntimeError, as stock raises cuDNN's own
// refusal of such a call (CUDNN_STATUS_BAD_PARAM, NOT_SUPPORTED).
template <typename Plan>
auto planned(const Plan& plan) -> decltype(plan()) {
  try {
    return plan();
  } catch (const std::invalid_argument& error) {
    TORCH_CHECK(false, error.what());
  }
}

}  // namespace torch_cuda::native
