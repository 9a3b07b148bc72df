// The real variant's executor of batch_norm_plan.h's plans: cuDNN's batch-norm API, as
// stock's cudnn/BatchNorm.cpp calls it: the input's descriptor, the per-channel descriptor
// cuDNN derives from it for the mode (float parameters for half and bfloat16 data), the
// batch-norm-only op (no fused add or activation), and the work area and reserve sizes
// cuDNN asks for. Training is cudnnBatchNormalizationForwardTrainingEx, inference
// cudnnBatchNormalizationForwardInference, backward cudnnBatchNormalizationBackwardEx,
// each on the stream with the calling thread's cuDNN handle for the device.
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/batch_norm_executable.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_check.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_common.h"

namespace torch_cuda::cudnn {
namespace {

constexpr cudnnBatchNormOps_t kOps = CUDNN_BATCHNORM_OPS_BN;

cudnnBatchNormMode_t cudnn_mode(BatchNormMode mode) {
  switch (mode) {
    case BatchNormMode::kPerActivation:
      return CUDNN_BATCHNORM_PER_ACTIVATION;
    case BatchNormMode::kSpatial:
      return CUDNN_BATCHNORM_SPATIAL;
    case BatchNormMode::kSpatialPersistent:
      return CUDNN_BATCHNORM_SPATIAL_PERSISTENT;
  }
  return CUDNN_BATCHNORM_SPATIAL;
}

// The input's descriptor (also y's, dy's and dx's) and the derived parameter descriptor.
class Descriptors {
 public:
  explicit Descriptors(const BatchNormPlan& plan)
      : x(plan.data_type, plan.dims, plan.x_sizes.data(), plan.x_strides.data()) {
    TORCH_CUDNN_CHECK(cudnnCreateTensorDescriptor(&params));
    const cudnnStatus_t status = cudnnDeriveBNTensorDescriptor(params, x, cudnn_mode(plan.mode));
    if (status != CUDNN_STATUS_SUCCESS) {
      cudnnDestroyTensorDescriptor(params);
      throw_cudnn_error(status, "cudnnDeriveBNTensorDescriptor", __FILE__, __LINE__);
    }
  }
  ~Descriptors() { cudnnDestroyTensorDescriptor(params); }
  Descriptors(const Descriptors&) = delete;
  Descriptors& operator=(const Descriptors&) = delete;

  TensorDescriptor x;
  cudnnTensorDescriptor_t params = nullptr;
};

class CudnnBatchNorm final : public BatchNormExecutable {
 public:
  CudnnBatchNorm(const BatchNormPlan& plan, int device) : plan_(plan), device_(device) {
    const Descriptors d(plan_);
    const cudnnHandle_t handle = cudnn_handle(device_);
    const cudnnBatchNormMode_t mode = cudnn_mode(plan_.mode);
    switch (plan_.pass) {
      case BatchNormPass::kForwardTraining:
        TORCH_CUDNN_CHECK(cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(
            handle, mode, kOps, d.x, nullptr, d.x, d.params, nullptr, &workspace_bytes_));
        TORCH_CUDNN_CHECK(
            cudnnGetBatchNormalizationTrainingExReserveSpaceSize(handle, mode, kOps, nullptr, d.x, &reserve_bytes_));
        break;
      case BatchNormPass::kBackward:
        TORCH_CUDNN_CHECK(cudnnGetBatchNormalizationBackwardExWorkspaceSize(
            handle, mode, kOps, d.x, d.x, d.x, nullptr, d.x, d.params, nullptr, &workspace_bytes_));
        TORCH_CUDNN_CHECK(
            cudnnGetBatchNormalizationTrainingExReserveSpaceSize(handle, mode, kOps, nullptr, d.x, &reserve_bytes_));
        break;
      case BatchNormPass::kForwardInference:
        break;
    }
  }

  std::int64_t workspace_size() const override { return static_cast<std::int64_t>(workspace_bytes_); }
  std::int64_t reserve_size() const override { return static_cast<std::int64_t>(reserve_bytes_); }

  void run(const BatchNormBuffers& b, torch_core::StreamHandle stream) const override {
    const Descriptors d(plan_);
    const cudnnHandle_t handle = cudnn_handle(device_);
    TORCH_CUDNN_CHECK(cudnnSetStream(handle, static_cast<cudaStream_t>(stream)));
    const cudnnBatchNormMode_t mode = cudnn_mode(plan_.mode);
    const Scaling scaling(plan_.data_type);
    switch (plan_.pass) {
      case BatchNormPass::kForwardTraining: {
        void* running_mean = plan_.update_running_stats ? b.running_mean : nullptr;
        void* running_var = plan_.update_running_stats ? b.running_var : nullptr;
        TORCH_CUDNN_CHECK(cudnnBatchNormalizationForwardTrainingEx(
            handle, mode, kOps, scaling.one(), scaling.zero(), d.x, b.x, nullptr, nullptr, d.x, b.y, d.params, b.scale,
            b.bias, plan_.exponential_average_factor, running_mean, running_var, plan_.epsilon, b.saved_mean,
            b.saved_inv_std, nullptr, b.workspace, workspace_bytes_, b.reserve, reserve_bytes_));
        break;
      }
      case BatchNormPass::kForwardInference:
        TORCH_CUDNN_CHECK(cudnnBatchNormalizationForwardInference(
            handle, mode, scaling.one(), scaling.zero(), d.x, b.x, d.x, b.y, d.params, b.scale, b.bias, b.running_mean,
            b.running_var, plan_.epsilon));
        break;
      case BatchNormPass::kBackward:
        TORCH_CUDNN_CHECK(cudnnBatchNormalizationBackwardEx(
            handle, mode, kOps, scaling.one(), scaling.zero(), scaling.one(), scaling.zero(), d.x, b.x, nullptr,
            nullptr, d.x, b.dy, nullptr, nullptr, d.x, b.dx, d.params, b.scale, nullptr, b.scale_grad, b.bias_grad,
            plan_.epsilon, b.saved_mean, b.saved_inv_std, nullptr, b.workspace, workspace_bytes_, b.reserve,
            static_cast<std::size_t>(b.reserve_bytes)));
        break;
    }
  }

 private:
  BatchNormPlan plan_;
  int device_;
  std::size_t workspace_bytes_ = 0;
  std::size_t reserve_bytes_ = 0;
};

}  // namespace

std::unique_ptr<BatchNormExecutable> make_batch_norm_executable(const BatchNormPlan& plan) {
  return std::make_unique<CudnnBatchNorm>(plan, current_device());
}

}  // namespace torch_cuda::cudnn
