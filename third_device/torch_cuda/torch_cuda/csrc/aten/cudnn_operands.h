// What the CUDA key's cuDNN operators (cudnn_conv_ops.cpp, cudnn_batch_norm_ops.cpp) hand
// their plans from a tensor: its data type in the plans' terms, and its sizes and strides.
#pragma once

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

inline cudnn::TensorGeometry geometry(const at::Tensor& t) {
  cudnn::TensorGeometry g;
  for (const auto d : c10::irange(t.dim())) {
    g.sizes[d] = t.size(d);
    g.strides[d] = t.stride(d);
  }
  return g;
}

}  // namespace torch_cuda::native
