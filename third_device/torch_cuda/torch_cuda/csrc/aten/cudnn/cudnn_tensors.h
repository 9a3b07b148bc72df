// What the plans of torch_cuda's cuDNN calls (convolutions, batch norm) share: the data
// types, the largest rank cuDNN takes for them (N, C and up to three spatial dimensions),
// how a dense tensor is laid out in either of cuDNN's formats, and how a plan refuses what
// cuDNN cannot take. Plain host C++.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace torch_cuda::cudnn {

inline constexpr int kMaxSpatial = 3;
inline constexpr int kMaxDims = kMaxSpatial + 2;

enum class DataType : std::int8_t { kHalf, kBFloat16, kFloat, kDouble };

// cuDNN's math types: kDefault lets float use TF32 tensor cores, kTensorOp is half's and
// bfloat16's tensor cores, kFma is plain float arithmetic (allow_tf32 off).
enum class MathType : std::int8_t { kDefault, kTensorOp, kFma };

// A tensor as torch holds it: N, C, then the spatial dimensions.
struct TensorGeometry {
  std::array<std::int64_t, kMaxDims> sizes{};
  std::array<std::int64_t, kMaxDims> strides{};  // in elements
};

// The strides of a dense tensor of `sizes` (N, C, then the spatial dimensions; `dims` of
// them) in NCHW order, or in NHWC order (channels innermost): also how cuDNN lays out a
// filter of either format.
template <typename Size>
std::array<std::int64_t, kMaxDims> dense_strides(const std::array<Size, kMaxDims>& sizes, int dims,
                                                 bool channels_last) {
  std::array<std::int64_t, kMaxDims> strides{};
  std::int64_t stride = 1;
  const auto place = [&](int d) {
    strides[d] = stride;
    stride *= sizes[d];
  };
  if (channels_last) place(1);
  for (int d = dims - 1; d >= 2; --d) place(d);
  if (!channels_last) place(1);
  place(0);
  return strides;
}

// Whether `t` is dense in NCHW order, or in NHWC order. Dimensions of size 1 may carry any
// stride.
inline bool dense_in_order(const TensorGeometry& t, int dims, bool channels_last) {
  const auto expected = dense_strides(t.sizes, dims, channels_last);
  for (int d = 0; d < dims; ++d) {
    if (t.sizes[d] != 1 && t.strides[d] != expected[d]) return false;
  }
  return true;
}

// Whether cuDNN's int (sizes, strides, counts) holds `value`.
inline bool fits_int(std::int64_t value) {
  return value <= std::numeric_limits<int>::max() && value >= std::numeric_limits<int>::min();
}

// A plan's refusal: std::invalid_argument("<plan>: <what>").
[[noreturn]] inline void refuse(const char* plan, const std::string& what) {
  throw std::invalid_argument(std::string(plan) + ": " + what);
}

// `value` as cuDNN's int; refused by `plan`, naming `what`, beyond it.
inline int as_cudnn_int(const char* plan, std::int64_t value, const char* what) {
  if (!fits_int(value)) refuse(plan, std::string(what) + " " + std::to_string(value) + " exceeds cuDNN's int");
  return static_cast<int>(value);
}

}  // namespace torch_cuda::cudnn
