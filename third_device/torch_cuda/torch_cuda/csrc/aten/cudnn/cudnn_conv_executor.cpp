// The real variant's executor of conv_plan.h's plans: cuDNN's graph API through its
// frontend, as stock's Conv_v8.cpp builds convolutions. Making an executable describes the
// plan as a one-node graph (conv_fprop, conv_dgrad or conv_wgrad over the plan's tensors,
// the filter in its NCHW or NHWC layout, the plan's compute type), lowers it and asks
// cuDNN's heuristics (mode A, then the fallback list) for engine configurations, dropping
// the ones stock's filterEngineConfigs drops: those that down-convert their inputs, the
// nondeterministic ones under torch.backends.cudnn.deterministic, and tensor-core ones for
// float without TF32. Then it builds the first supported plan or, with benchmark, builds
// every plan and times each on the call's own buffers with a work area from the caller's
// allocator (stock's FindEx through the caching allocator), keeping the fastest. Running
// binds the thread's cuDNN handle to the stream and executes with the buffers' pointers;
// one built graph may run from several threads, each with its own handle.
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <cudnn_frontend.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/conv_executable.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_check.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_common.h"

namespace torch_cuda::cudnn {
namespace {

namespace fe = cudnn_frontend;
using TensorPtr = std::shared_ptr<fe::graph::Tensor_attributes>;

// The uids the buffers are bound by: the convolution's input, filter and output.
enum Uid : std::int64_t { kX = 1, kW, kY };

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

fe::DataType_t frontend_type(DataType type) {
  switch (type) {
    case DataType::kHalf:
      return fe::DataType_t::HALF;
    case DataType::kBFloat16:
      return fe::DataType_t::BFLOAT16;
    case DataType::kFloat:
      return fe::DataType_t::FLOAT;
    case DataType::kDouble:
      return fe::DataType_t::DOUBLE;
  }
  return fe::DataType_t::NOT_SET;
}

// A tensor's sizes and strides as the frontend takes them.
struct Geometry {
  std::vector<std::int64_t> sizes;
  std::vector<std::int64_t> strides;
};

template <typename Int, std::size_t N>
std::vector<std::int64_t> first(const std::array<Int, N>& values, int count) {
  return std::vector<std::int64_t>(values.begin(), values.begin() + count);
}

class CudnnConvolution final : public ConvExecutable {
 public:
  CudnnConvolution(const ConvPlan& plan, int device, const ConvTuning& tuning) : plan_(plan) {
    const cudnnHandle_t handle = cudnn_handle(device);
    graph_.set_io_data_type(frontend_type(plan.data_type))
        .set_intermediate_data_type(frontend_type(plan.compute_type))
        .set_compute_data_type(frontend_type(plan.compute_type));
    const int dims = plan.dims, spatial = plan.dims - 2;
    const Geometry x{first(plan.x_sizes, dims), first(plan.x_strides, dims)},
        w{first(plan.w_sizes, dims), first(dense_strides(plan.w_sizes, dims, plan.w_channels_last), dims)},
        y{first(plan.y_sizes, dims), first(plan.y_strides, dims)};
    const std::vector<std::int64_t> padding = first(plan.padding, spatial), stride = first(plan.stride, spatial),
                                    dilation = first(plan.dilation, spatial);
    switch (plan.direction) {
      case ConvDirection::kForward: {
        auto attributes = fe::graph::Conv_fprop_attributes().set_name("conv_fprop").set_padding(padding);
        attributes.set_stride(stride).set_dilation(dilation);
        output(graph_.conv_fprop(input(x, kX, "x"), input(w, kW, "w"), attributes), y, kY);
        break;
      }
      case ConvDirection::kBackwardData: {
        auto attributes = fe::graph::Conv_dgrad_attributes().set_name("conv_dgrad").set_padding(padding);
        attributes.set_stride(stride).set_dilation(dilation);
        output(graph_.conv_dgrad(input(y, kY, "dy"), input(w, kW, "w"), attributes), x, kX);
        break;
      }
      case ConvDirection::kBackwardFilter: {
        auto attributes = fe::graph::Conv_wgrad_attributes().set_name("conv_wgrad").set_padding(padding);
        attributes.set_stride(stride).set_dilation(dilation);
        output(graph_.conv_wgrad(input(y, kY, "dy"), input(x, kX, "x"), attributes), w, kW);
        break;
      }
    }
    ok(graph_.validate(), "validate");
    ok(graph_.build_operation_graph(handle), "build_operation_graph");
    ok(graph_.create_execution_plans({fe::HeurMode_t::A, fe::HeurMode_t::FALLBACK}), "create_execution_plans");
    std::vector<fe::NumericalNote_t> dropped = {fe::NumericalNote_t::DOWN_CONVERT_INPUTS};
    if (plan.deterministic_only) dropped.push_back(fe::NumericalNote_t::NONDETERMINISTIC);
    if (plan.math_type == MathType::kFma) dropped.push_back(fe::NumericalNote_t::TENSOR_CORE);
    graph_.deselect_numeric_notes(dropped);
    ok(graph_.check_support(handle), "check_support");
    if (plan.benchmark) {
      ok(graph_.build_plans(handle, fe::BuildPlanPolicy_t::ALL), "build_plans");
      TORCH_CUDNN_CHECK(cudnnSetStream(handle, static_cast<cudaStream_t>(tuning.stream)));
      void* area = tuning.workspace(graph_.get_autotune_workspace_size());
      std::unordered_map<std::int64_t, void*> pointers = pointers_of(tuning.buffers);
      ok(graph_.autotune(handle, pointers, area), "autotune");
    } else {
      ok(graph_.build_plans(handle), "build_plans");
    }
    workspace_bytes_ = graph_.get_workspace_size();
  }

  std::int64_t workspace_size() const override { return workspace_bytes_; }

  void run(const ConvBuffers& buffers, void* workspace, torch_core::StreamHandle stream) const override {
    const cudnnHandle_t handle = cudnn_handle(current_device());
    TORCH_CUDNN_CHECK(cudnnSetStream(handle, static_cast<cudaStream_t>(stream)));
    std::unordered_map<std::int64_t, void*> pointers = pointers_of(buffers);
    ok(graph_.execute(handle, pointers, workspace), "execute");
  }

 private:
  TensorPtr input(const Geometry& g, Uid uid, const char* name) {
    return graph_.tensor(fe::graph::Tensor_attributes().set_name(name).set_uid(uid).set_dim(g.sizes).set_stride(
        g.strides));
  }

  static void output(const TensorPtr& tensor, const Geometry& g, Uid uid) {
    tensor->set_output(true).set_uid(uid).set_dim(g.sizes).set_stride(g.strides);
  }

  static std::unordered_map<std::int64_t, void*> pointers_of(const ConvBuffers& b) {
    return {{kX, b.x}, {kW, b.w}, {kY, b.y}};
  }

  void ok(fe::error_t status, const char* step) const {
    if (status.is_good()) return;
    std::string message = std::string("cuDNN ") + direction_name(plan_.direction) + " convolution: " + step +
                          " failed: " + status.get_message();
    if (plan_.deterministic_only) message += "; torch.backends.cudnn.deterministic = False allows more engines";
    message += "; torch.backends.cudnn.enabled = False runs torch_cuda's convolution without cuDNN";
    throw std::runtime_error(message);
  }

  ConvPlan plan_;
  fe::graph::Graph graph_;
  std::int64_t workspace_bytes_ = 0;
};

}  // namespace

std::unique_ptr<ConvExecutable> make_conv_executable(const ConvPlan& plan, const ConvTuning& tuning) {
  if (plan.benchmark && !tuning.workspace) {
    throw std::invalid_argument("cuDNN convolution: benchmark times the candidates on the call's buffers; none given");
  }
  return std::make_unique<CudnnConvolution>(plan, current_device(), tuning);
}

}  // namespace torch_cuda::cudnn
