#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/batch_norm_plan.h"

#include <cstdint>
#include <string>

namespace torch_cuda::cudnn {
namespace {

constexpr const char* kPlan = "cuDNN batch norm plan";

[[noreturn]] void refuse(const std::string& what) { cudnn::refuse(kPlan, what); }

// cuDNN's pairing of the data with its scale, bias and statistics.
DataType param_type_for(DataType data_type) {
  return data_type == DataType::kHalf || data_type == DataType::kBFloat16 ? DataType::kFloat : data_type;
}

// As stock's getCudnnBatchNormMode; the backward pass is planned as training's.
BatchNormMode mode_of(const BatchNormCall& call) {
  if (call.dims == 2) return BatchNormMode::kPerActivation;
  const bool training = call.pass != BatchNormPass::kForwardInference;
  return training && call.channels_last ? BatchNormMode::kSpatialPersistent : BatchNormMode::kSpatial;
}

}  // namespace

BatchNormPlan plan_batch_norm(const BatchNormCall& call) {
  if (call.dims < 2 || call.dims > kMaxDims) {
    refuse("the input has " + std::to_string(call.dims) + " dimensions; cuDNN takes 2 to " +
           std::to_string(kMaxDims));
  }
  if (call.param_type != param_type_for(call.data_type)) {
    refuse("cuDNN pairs half and bfloat16 data with float weight, bias and statistics, and float or double "
           "data with their own type; convert the weight, bias and running statistics");
  }
  if (!(call.epsilon >= 0.0)) refuse("epsilon must be >= 0, not " + std::to_string(call.epsilon));
  // Padded to cuDNN's four dimensions with trailing sizes of 1.
  const int dims = call.dims < 4 ? 4 : call.dims;
  TensorGeometry x = call.x;
  for (int d = call.dims; d < dims; ++d) {
    x.sizes[d] = 1;
    x.strides[d] = 1;
  }
  for (int d = 0; d < dims; ++d) {
    if (x.sizes[d] <= 0) refuse("the input has a dimension of size " + std::to_string(x.sizes[d]));
  }
  if (!dense_in_order(x, dims, call.channels_last)) {
    refuse(std::string("the input is not dense in ") + (call.channels_last ? "NHWC" : "NCHW") +
           " order; make it contiguous in its suggested memory format");
  }
  BatchNormPlan plan;
  plan.pass = call.pass;
  plan.mode = mode_of(call);
  plan.data_type = call.data_type;
  plan.param_type = call.param_type;
  plan.dims = dims;
  // The strides of the dense layout: a dimension of size 1 gets the one cuDNN expects.
  const auto strides = dense_strides(x.sizes, dims, call.channels_last);
  std::int64_t elements = 1;
  for (int d = 0; d < dims; ++d) {
    elements *= x.sizes[d];
    if (!fits_int(x.sizes[d]) || !fits_int(strides[d]) || !fits_int(elements)) {
      refuse("the input's " + std::to_string(elements) + " elements exceed cuDNN's int");
    }
    plan.x_sizes[d] = static_cast<int>(x.sizes[d]);
    plan.x_strides[d] = static_cast<int>(strides[d]);
  }
  plan.epsilon = call.epsilon;
  plan.exponential_average_factor = call.exponential_average_factor;
  plan.update_running_stats = call.pass == BatchNormPass::kForwardTraining && call.running_stats;
  return plan;
}

std::int64_t parameter_count(const BatchNormPlan& plan) {
  std::int64_t count = plan.x_sizes[1];
  if (plan.mode == BatchNormMode::kPerActivation) {
    for (int d = 2; d < plan.dims; ++d) count *= plan.x_sizes[d];
  }
  return count;
}

}  // namespace torch_cuda::cudnn
