// The real variant's executor of ctc_loss_plan.h's plans: cuDNN's CTC loss as stock's
// cudnn/LossCTC.cpp calls it: a CTC loss descriptor (float compute, softmax normalisation,
// labels up to 255 long), tensor descriptors of the activations (their strides) and the
// gradients (dense), the workspace size, then cudnnCTCLoss with the labels and lengths in
// host memory or cudnnCTCLoss_v8 with them in device memory, on the stream with the calling
// thread's cuDNN handle for the device.
//
// Samples that cannot align (label length plus repeats beyond their input length) get a
// zero gradient (CUDNN_CTC_ZERO_OOB_GRADIENTS). Stock asks cuDNN to skip them, which leaves
// whatever its uninitialised gradient tensor held; zero is what zero_infinity promises and
// never reads stale memory.
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/ctc_loss_executable.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_check.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_common.h"

namespace torch_cuda::cudnn {
namespace {

using CtcDesc = Owned<cudnnCTCLossDescriptor_t, cudnnCreateCTCLossDescriptor, cudnnDestroyCTCLossDescriptor>;

class CudnnCtcLoss final : public CtcLossExecutable {
 public:
  CudnnCtcLoss(const CtcLossPlan& plan, int device)
      : plan_(plan),
        handle_(cudnn_handle(device)),
        activations_(DataType::kFloat, 3, plan.sizes.data(), plan.strides.data()),
        gradients_(DataType::kFloat, 3, plan.sizes.data(), gradient_strides().data()) {
    TORCH_CUDNN_CHECK(cudnnSetCTCLossDescriptor_v9(ctc_.get(), CUDNN_DATA_FLOAT, CUDNN_LOSS_NORMALIZATION_SOFTMAX,
                                                   CUDNN_CTC_ZERO_OOB_GRADIENTS, kMaxCtcLabelLength));
    if (plan_.lengths == CtcLengths::kHost) {
      TORCH_CUDNN_CHECK(cudnnGetCTCLossWorkspaceSize(handle_, activations_, gradients_, plan_.labels.data(),
                                                     plan_.label_lengths.data(), plan_.input_lengths.data(), algo(),
                                                     ctc_.get(), &workspace_bytes_));
    } else {
      TORCH_CUDNN_CHECK(
          cudnnGetCTCLossWorkspaceSize_v8(handle_, algo(), ctc_.get(), activations_, gradients_, &workspace_bytes_));
    }
  }

  std::int64_t workspace_size() const override { return static_cast<std::int64_t>(workspace_bytes_); }

  void run(const CtcLossBuffers& b, torch_core::StreamHandle stream) const override {
    TORCH_CUDNN_CHECK(cudnnSetStream(handle_, static_cast<cudaStream_t>(stream)));
    if (plan_.lengths == CtcLengths::kHost) {
      TORCH_CUDNN_CHECK(cudnnCTCLoss(handle_, activations_, b.activations, plan_.labels.data(),
                                     plan_.label_lengths.data(), plan_.input_lengths.data(), b.costs, gradients_,
                                     b.gradients, algo(), ctc_.get(), b.workspace, workspace_bytes_));
    } else {
      TORCH_CUDNN_CHECK(cudnnCTCLoss_v8(handle_, algo(), ctc_.get(), activations_, b.activations, b.labels,
                                        b.label_lengths, b.input_lengths, b.costs, gradients_, b.gradients,
                                        workspace_bytes_, b.workspace));
    }
  }

 private:
  cudnnCTCLossAlgo_t algo() const {
    return plan_.deterministic ? CUDNN_CTC_LOSS_ALGO_DETERMINISTIC : CUDNN_CTC_LOSS_ALGO_NON_DETERMINISTIC;
  }
  std::array<int, 3> gradient_strides() const {
    return {plan_.sizes[1] * plan_.sizes[2], plan_.sizes[2], 1};
  }

  CtcLossPlan plan_;
  cudnnHandle_t handle_;
  CtcDesc ctc_;
  TensorDescriptor activations_;
  TensorDescriptor gradients_;
  std::size_t workspace_bytes_ = 0;
};

}  // namespace

std::unique_ptr<CtcLossExecutable> make_ctc_loss_executable(const CtcLossPlan& plan) {
  return std::make_unique<CudnnCtcLoss>(plan, current_device());
}

}  // namespace torch_cuda::cudnn
