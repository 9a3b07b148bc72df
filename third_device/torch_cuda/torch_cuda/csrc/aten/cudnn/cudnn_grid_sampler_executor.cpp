// The real variant's executor of grid_sampler_plan.h's plans: cuDNN's spatial transformer
// sampler, as stock's cudnn/GridSampler.cpp calls it: a bilinear sampler descriptor of the
// output's (N, C, Ho, Wo), tensor descriptors of the input (its strides), the output and
// the input's gradient (dense) and the output's gradient (its strides), then
// cudnnSpatialTfSamplerForward, or cudnnSpatialTfSamplerBackward for both gradients, on
// the stream with the calling thread's cuDNN handle for the device.
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <array>
#include <memory>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_check.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_common.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/grid_sampler_executable.h"

namespace torch_cuda::cudnn {
namespace {

std::array<int, 4> dense(const std::array<int, 4>& sizes) {
  return {sizes[1] * sizes[2] * sizes[3], sizes[2] * sizes[3], sizes[3], 1};
}

class Descriptors {
 public:
  explicit Descriptors(const GridSamplerPlan& plan)
      : x(plan.data_type, 4, plan.x_sizes.data(), plan.x_strides.data()),
        dx(plan.data_type, 4, plan.x_sizes.data(), dense(plan.x_sizes).data()),
        y(plan.data_type, 4, plan.y_sizes.data(),
          (plan.pass == SamplerPass::kForward ? dense(plan.y_sizes) : plan.dy_strides).data()) {
    TORCH_CUDNN_CHECK(cudnnCreateSpatialTransformerDescriptor(&sampler));
    const cudnnStatus_t status = cudnnSetSpatialTransformerNdDescriptor(
        sampler, CUDNN_SAMPLER_BILINEAR, cudnn_data_type(plan.data_type), 4, plan.y_sizes.data());
    if (status != CUDNN_STATUS_SUCCESS) {
      cudnnDestroySpatialTransformerDescriptor(sampler);
      throw_cudnn_error(status, "cudnnSetSpatialTransformerNdDescriptor", __FILE__, __LINE__);
    }
  }
  ~Descriptors() { cudnnDestroySpatialTransformerDescriptor(sampler); }
  Descriptors(const Descriptors&) = delete;
  Descriptors& operator=(const Descriptors&) = delete;

  TensorDescriptor x;
  TensorDescriptor dx;
  TensorDescriptor y;  // the output, or its gradient
  cudnnSpatialTransformerDescriptor_t sampler = nullptr;
};

class CudnnGridSampler final : public GridSamplerExecutable {
 public:
  CudnnGridSampler(const GridSamplerPlan& plan, int device) : plan_(plan), device_(device) {}

  void run(const GridSamplerBuffers& b, torch_core::StreamHandle stream) const override {
    const Descriptors d(plan_);
    const cudnnHandle_t handle = cudnn_handle(device_);
    TORCH_CUDNN_CHECK(cudnnSetStream(handle, static_cast<cudaStream_t>(stream)));
    const Scaling scaling(plan_.data_type);
    if (plan_.pass == SamplerPass::kForward) {
      TORCH_CUDNN_CHECK(cudnnSpatialTfSamplerForward(handle, d.sampler, scaling.one(), d.x, b.x, b.grid,
                                                     scaling.zero(), d.y, b.y));
    } else {
      TORCH_CUDNN_CHECK(cudnnSpatialTfSamplerBackward(handle, d.sampler, scaling.one(), d.x, b.x, scaling.zero(), d.dx,
                                                      b.dx, scaling.one(), d.y, b.dy, b.grid, scaling.zero(),
                                                      b.dgrid));
    }
  }

 private:
  GridSamplerPlan plan_;
  int device_;
};

}  // namespace

std::unique_ptr<GridSamplerExecutable> make_grid_sampler_executable(const GridSamplerPlan& plan) {
  return std::make_unique<CudnnGridSampler>(plan, current_device());
}

}  // namespace torch_cuda::cudnn
