// The plans of torch_cuda's cuDNN convolutions: everything decided before cuDNN is called,
// in plain host C++ (no CUDA or cuDNN header), so that both variants run the same plan.
// The CUDA key's cudnn_convolution and cudnn_convolution_transpose (cudnn_conv_ops.cpp)
// describe the call as a ConvKey (stock's ConvolutionParams: the three tensors' sizes and
// strides, padding, stride, dilation, groups, data type, and torch.backends.cudnn's
// deterministic, benchmark and allow_tf32) and plan it; an executor runs the plan:
//   real       cudnn/cudnn_conv_executor.cpp: a cuDNN frontend graph (conv_fprop,
//              conv_dgrad or conv_wgrad), its engine from cuDNN's heuristics or, with
//              benchmark, the fastest of its candidates timed on the call's buffers
//   simulated  simulated/csrc/host_conv.cpp: the same call on the host with cuDNN's
//              documented semantics (cross-correlation, the descriptors' strides, groups
//              splitting the channels, y = alpha * op + beta * y)
// so a wrong stride, filter layout or group split in a plan fails in CI.
//
// Tensors are N, C, then the spatial dimensions (two or three: a 1-d convolution is planned
// as a 2-d one of height 1, as stock views it). The filter is K, C / groups, spatial; cuDNN
// takes its layout as a format (NCHW or NHWC), which the plan reads off its strides.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_tensors.h"

namespace torch_cuda::cudnn {

// What the call computes, in cuDNN's names: y = conv(x, w); dx from dy and w (also a
// transposed convolution's forward); dw from x and dy.
enum class ConvDirection : std::int8_t { kForward, kBackwardData, kBackwardFilter };

// The plan's key, as stock's ConvolutionParams: x, w and y are always the convolution's
// input, filter and output (for kBackwardData, y is dy and x is dx).
struct ConvKey {
  ConvDirection direction = ConvDirection::kForward;
  DataType data_type = DataType::kFloat;
  int spatial = 2;
  TensorGeometry x;
  TensorGeometry w;
  TensorGeometry y;
  std::array<std::int64_t, kMaxSpatial> padding{};
  std::array<std::int64_t, kMaxSpatial> stride{};
  std::array<std::int64_t, kMaxSpatial> dilation{};
  std::int64_t groups = 1;
  bool deterministic = false;
  bool benchmark = false;
  bool allow_tf32 = true;

  bool operator==(const ConvKey& other) const;
};

struct ConvKeyHash {
  std::size_t operator()(const ConvKey& key) const;
};

// One cuDNN call. Sizes and strides are cuDNN's ints (checked); the filter's strides are
// implied by its format.
struct ConvPlan {
  ConvDirection direction = ConvDirection::kForward;
  DataType data_type = DataType::kFloat;
  // The accumulation type: float for half, bfloat16 and float; double for double.
  DataType compute_type = DataType::kFloat;
  MathType math_type = MathType::kDefault;
  int dims = 4;  // N, C and the spatial dimensions
  std::array<int, kMaxDims> x_sizes{};
  std::array<int, kMaxDims> x_strides{};
  std::array<int, kMaxDims> w_sizes{};
  bool w_channels_last = false;
  std::array<int, kMaxDims> y_sizes{};
  std::array<int, kMaxDims> y_strides{};
  std::array<int, kMaxSpatial> padding{};
  std::array<int, kMaxSpatial> stride{};
  std::array<int, kMaxSpatial> dilation{};
  int groups = 1;
  // Only algorithms cuDNN reports deterministic (torch.backends.cudnn.deterministic).
  bool deterministic_only = false;
  // Time the candidate engines on the device instead of taking cuDNN's heuristics
  // (torch.backends.cudnn.benchmark); executors are cached per key, so once per shape.
  bool benchmark = false;
};

// The output size of one spatial dimension, as cuDNN and stock compute it.
std::int64_t conv_output_size(std::int64_t input, std::int64_t kernel, std::int64_t padding, std::int64_t stride,
                              std::int64_t dilation);

// The plan of `key`. Throws std::invalid_argument, saying which, for a spatial rank other
// than 2 or 3, a non-positive size, stride or dilation, a negative padding, channels that
// the groups do not divide, a filter whose input channels are not C / groups, an output
// whose sizes are not the convolution's, a size or stride beyond cuDNN's int, or a filter
// whose strides are neither NCHW's nor NHWC's (the operator makes it one of the two), or an
// input or output of more elements than cuDNN's int (the operator splits the batch).
ConvPlan plan_conv(const ConvKey& key);

// A run of samples of the batch: [start, start + size).
struct BatchSlice {
  std::int64_t start;
  std::int64_t size;
};

// How the operator splits a call over the batch, as stock's split_batch_dim_to_32bit_out:
// the whole batch while the input (x_elements) and the output (y_elements) fit cuDNN's int;
// beyond, slices of max(2^28 / per-sample elements of the larger, 1) samples. Throws
// std::invalid_argument when one sample alone exceeds cuDNN's int.
std::vector<BatchSlice> conv_batch_slices(std::int64_t batch, std::int64_t x_elements, std::int64_t y_elements);

}  // namespace torch_cuda::cudnn
