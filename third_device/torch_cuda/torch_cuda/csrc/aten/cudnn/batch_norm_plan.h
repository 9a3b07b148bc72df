// The plans of torch_cuda's cuDNN batch norms: everything decided before cuDNN is called,
// in plain host C++, so that both variants run the same plan. The CUDA key's
// cudnn_batch_norm and cudnn_batch_norm_backward (cudnn_batch_norm_ops.cpp) describe the
// call as a BatchNormCall and plan it; an executor runs the plan:
//   real       cudnn/cudnn_batch_norm_executor.cpp: the input's tensor descriptor, the
//              per-channel one cuDNN derives from it, and
//              cudnnBatchNormalization{ForwardTrainingEx,ForwardInference,BackwardEx}
//   simulated  simulated/csrc/host_batch_norm.cpp: the same call on the host with cuDNN's
//              documented semantics (statistics per channel over N and the spatial
//              dimensions, or per activation over N; the saved inverse standard deviation;
//              running statistics averaged with the factor, the variance unbiased)
// so a wrong layout, mode or statistic in a plan fails in CI.
//
// The input is N, C and up to three spatial dimensions; cuDNN takes at least four, so a
// 2-d or 3-d input is described with trailing dimensions of size 1, as stock's descriptor
// pads it. dy and dx have the input's layout (the operator makes them so).
#pragma once

#include <array>
#include <cstdint>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_tensors.h"

namespace torch_cuda::cudnn {

// Which of cuDNN's batch-norm calls: training (batch statistics, saved for backward,
// running statistics updated when given), inference (running statistics), backward.
enum class BatchNormPass : std::int8_t { kForwardTraining, kForwardInference, kBackward };
// cuDNN's modes: statistics per activation (over N; stock's choice for a 2-d input), per
// channel (over N and the spatial dimensions), or per channel with cuDNN's persistent
// kernels (stock's choice when training in channels-last).
enum class BatchNormMode : std::int8_t { kPerActivation, kSpatial, kSpatialPersistent };

// What the operator asks for.
struct BatchNormCall {
  BatchNormPass pass = BatchNormPass::kForwardTraining;
  DataType data_type = DataType::kFloat;   // x, y, dy, dx
  DataType param_type = DataType::kFloat;  // weight, bias, running and saved statistics
  int dims = 4;                            // the input's rank, 2 to 5
  TensorGeometry x;
  // The input's suggested memory format is channels-last (its strides are checked
  // against it).
  bool channels_last = false;
  double epsilon = 1e-5;
  double exponential_average_factor = 0.1;
  // Training: running statistics were given, and are updated.
  bool running_stats = false;
};

// One cuDNN call. Sizes and strides are cuDNN's ints (checked), at least four of them.
struct BatchNormPlan {
  BatchNormPass pass = BatchNormPass::kForwardTraining;
  BatchNormMode mode = BatchNormMode::kSpatial;
  DataType data_type = DataType::kFloat;
  DataType param_type = DataType::kFloat;
  int dims = 4;
  std::array<int, kMaxDims> x_sizes{};
  std::array<int, kMaxDims> x_strides{};
  double epsilon = 1e-5;
  double exponential_average_factor = 0.1;
  bool update_running_stats = false;
};

// The plan of `call`. Throws std::invalid_argument, saying which, for a rank outside 2 to 5,
// a non-positive size, an input dense in neither NCHW nor NHWC order (or not in the one it
// claims), a size or stride beyond cuDNN's int, parameters of a type cuDNN does not pair
// with the data (float for half and bfloat16, the data's own for float and double), or a
// negative epsilon.
BatchNormPlan plan_batch_norm(const BatchNormCall& call);

// The number of per-channel parameters (or per-activation ones) of `plan`: C, or C times
// the spatial sizes for kPerActivation.
std::int64_t parameter_count(const BatchNormPlan& plan);

}  // namespace torch_cuda::cudnn
