// The real variant's executor of conv_plan.h's plans: cuDNN's convolution API, as stock's
// Conv_v7.cpp calls it. Making an executable describes the plan (tensor, filter and
// convolution descriptors) and picks an algorithm: the first that cuDNN's heuristics rank
// (cudnnGetConvolution*Algorithm_v7) or, with benchmark, the fastest that cuDNN times on
// the device (cudnnFindConvolution*Algorithm), skipping the nondeterministic ones when
// the plan asks for determinism; the descriptor's math type is then the algorithm's,
// except that float without TF32 stays on FMA math, as stock's. Each run describes the
// plan again (descriptors are cheap, host-only and not shared between threads) and calls
// cudnnConvolution{Forward,BackwardData,BackwardFilter} on the stream with the calling
// thread's cuDNN handle for the device.
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/conv_executable.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_check.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_common.h"

namespace torch_cuda::cudnn {
namespace {

// The plan as cuDNN descriptors, destroyed with this.
class Descriptors {
 public:
  Descriptors(const ConvPlan& plan, cudnnMathType_t math_type)
      : x(plan.data_type, plan.dims, plan.x_sizes.data(), plan.x_strides.data()),
        y(plan.data_type, plan.dims, plan.y_sizes.data(), plan.y_strides.data()) {
    try {
      const cudnnTensorFormat_t filter_format = plan.w_channels_last ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
      TORCH_CUDNN_CHECK(cudnnCreateFilterDescriptor(&w));
      TORCH_CUDNN_CHECK(cudnnSetFilterNdDescriptor(w, cudnn_data_type(plan.data_type), filter_format, plan.dims,
                                                   plan.w_sizes.data()));
      TORCH_CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&conv));
      TORCH_CUDNN_CHECK(cudnnSetConvolutionNdDescriptor(conv, plan.dims - 2, plan.padding.data(), plan.stride.data(),
                                                        plan.dilation.data(), CUDNN_CROSS_CORRELATION,
                                                        cudnn_data_type(plan.compute_type)));
      TORCH_CUDNN_CHECK(cudnnSetConvolutionGroupCount(conv, plan.groups));
      TORCH_CUDNN_CHECK(cudnnSetConvolutionMathType(conv, math_type));
    } catch (...) {
      release();
      throw;
    }
  }
  ~Descriptors() { release(); }
  Descriptors(const Descriptors&) = delete;
  Descriptors& operator=(const Descriptors&) = delete;

  TensorDescriptor x;
  TensorDescriptor y;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;

 private:
  void release() {
    if (conv != nullptr) cudnnDestroyConvolutionDescriptor(conv);
    if (w != nullptr) cudnnDestroyFilterDescriptor(w);
  }
};

struct Choice {
  int algorithm = 0;
  cudnnMathType_t math_type = CUDNN_DEFAULT_MATH;
  std::size_t workspace_bytes = 0;
};

const char* direction_name(ConvDirection direction) {
  switch (direction) {
    case ConvDirection::kForward:
      return "forward";
    case ConvDirection::kBackwardData:
      return "backward-data";
    case ConvDirection::kBackwardFilter:
      return "backward-filter";
  }
  return "";
}

// The first usable algorithm of cuDNN's ranking (heuristics or timings, best first).
template <typename Perf, typename Rank>
Choice first_usable(const ConvPlan& plan, const Rank& rank) {
  std::array<Perf, 16> ranked{};
  int returned = 0;
  rank(static_cast<int>(ranked.size()), &returned, ranked.data());
  for (int i = 0; i < returned; ++i) {
    const Perf& perf = ranked[i];
    if (perf.status != CUDNN_STATUS_SUCCESS) continue;
    if (plan.deterministic_only && perf.determinism != CUDNN_DETERMINISTIC) continue;
    const cudnnMathType_t math_type = plan.math_type == MathType::kFma ? CUDNN_FMA_MATH : perf.mathType;
    return {static_cast<int>(perf.algo), math_type, 0};
  }
  std::string message = std::string("cuDNN error: no ") + (plan.deterministic_only ? "deterministic " : "") +
                        direction_name(plan.direction) + " convolution algorithm takes this convolution";
  if (plan.deterministic_only) message += "; torch.backends.cudnn.deterministic = False allows the others";
  throw CudnnError(CUDNN_STATUS_NOT_SUPPORTED, message);
}

Choice choose(const ConvPlan& plan, cudnnHandle_t handle) {
  const Descriptors d(plan, cudnn_math_type(plan.math_type));
  Choice choice;
  switch (plan.direction) {
    case ConvDirection::kForward:
      choice = first_usable<cudnnConvolutionFwdAlgoPerf_t>(plan, [&](int count, int* returned, auto* perf) {
        TORCH_CUDNN_CHECK(
            plan.benchmark
                ? cudnnFindConvolutionForwardAlgorithm(handle, d.x, d.w, d.conv, d.y, count, returned, perf)
                : cudnnGetConvolutionForwardAlgorithm_v7(handle, d.x, d.w, d.conv, d.y, count, returned, perf));
      });
      break;
    case ConvDirection::kBackwardData:
      choice = first_usable<cudnnConvolutionBwdDataAlgoPerf_t>(plan, [&](int count, int* returned, auto* perf) {
        TORCH_CUDNN_CHECK(
            plan.benchmark
                ? cudnnFindConvolutionBackwardDataAlgorithm(handle, d.w, d.y, d.conv, d.x, count, returned, perf)
                : cudnnGetConvolutionBackwardDataAlgorithm_v7(handle, d.w, d.y, d.conv, d.x, count, returned, perf));
      });
      break;
    case ConvDirection::kBackwardFilter:
      choice = first_usable<cudnnConvolutionBwdFilterAlgoPerf_t>(plan, [&](int count, int* returned, auto* perf) {
        TORCH_CUDNN_CHECK(
            plan.benchmark
                ? cudnnFindConvolutionBackwardFilterAlgorithm(handle, d.x, d.y, d.conv, d.w, count, returned, perf)
                : cudnnGetConvolutionBackwardFilterAlgorithm_v7(handle, d.x, d.y, d.conv, d.w, count, returned, perf));
      });
      break;
  }
  // The work area of the algorithm with the chosen math type.
  const Descriptors chosen(plan, choice.math_type);
  switch (plan.direction) {
    case ConvDirection::kForward:
      TORCH_CUDNN_CHECK(cudnnGetConvolutionForwardWorkspaceSize(
          handle, chosen.x, chosen.w, chosen.conv, chosen.y, static_cast<cudnnConvolutionFwdAlgo_t>(choice.algorithm),
          &choice.workspace_bytes));
      break;
    case ConvDirection::kBackwardData:
      TORCH_CUDNN_CHECK(cudnnGetConvolutionBackwardDataWorkspaceSize(
          handle, chosen.w, chosen.y, chosen.conv, chosen.x,
          static_cast<cudnnConvolutionBwdDataAlgo_t>(choice.algorithm), &choice.workspace_bytes));
      break;
    case ConvDirection::kBackwardFilter:
      TORCH_CUDNN_CHECK(cudnnGetConvolutionBackwardFilterWorkspaceSize(
          handle, chosen.x, chosen.y, chosen.conv, chosen.w,
          static_cast<cudnnConvolutionBwdFilterAlgo_t>(choice.algorithm), &choice.workspace_bytes));
      break;
  }
  return choice;
}

class CudnnConvolution final : public ConvExecutable {
 public:
  CudnnConvolution(const ConvPlan& plan, int device)
      : plan_(plan), device_(device), choice_(choose(plan, cudnn_handle(device))) {}

  std::int64_t workspace_size() const override { return static_cast<std::int64_t>(choice_.workspace_bytes); }

  void run(const ConvBuffers& buffers, void* workspace, torch_core::StreamHandle stream) const override {
    const Descriptors d(plan_, choice_.math_type);
    const cudnnHandle_t handle = cudnn_handle(device_);
    TORCH_CUDNN_CHECK(cudnnSetStream(handle, static_cast<cudaStream_t>(stream)));
    const Scaling scaling(plan_.compute_type);
    const std::size_t bytes = choice_.workspace_bytes;
    switch (plan_.direction) {
      case ConvDirection::kForward:
        TORCH_CUDNN_CHECK(cudnnConvolutionForward(handle, scaling.one(), d.x, buffers.x, d.w, buffers.w, d.conv,
                                                  static_cast<cudnnConvolutionFwdAlgo_t>(choice_.algorithm), workspace,
                                                  bytes, scaling.zero(), d.y, buffers.y));
        break;
      case ConvDirection::kBackwardData:
        TORCH_CUDNN_CHECK(cudnnConvolutionBackwardData(handle, scaling.one(), d.w, buffers.w, d.y, buffers.y, d.conv,
                                                       static_cast<cudnnConvolutionBwdDataAlgo_t>(choice_.algorithm),
                                                       workspace, bytes, scaling.zero(), d.x, buffers.x));
        break;
      case ConvDirection::kBackwardFilter:
        TORCH_CUDNN_CHECK(cudnnConvolutionBackwardFilter(
            handle, scaling.one(), d.x, buffers.x, d.y, buffers.y, d.conv,
            static_cast<cudnnConvolutionBwdFilterAlgo_t>(choice_.algorithm), workspace, bytes, scaling.zero(), d.w,
            buffers.w));
        break;
    }
  }

 private:
  ConvPlan plan_;
  int device_;
  Choice choice_;
};

}  // namespace

std::unique_ptr<ConvExecutable> make_conv_executable(const ConvPlan& plan) {
  return std::make_unique<CudnnConvolution>(plan, current_device());
}

}  // namespace torch_cuda::cudnn
