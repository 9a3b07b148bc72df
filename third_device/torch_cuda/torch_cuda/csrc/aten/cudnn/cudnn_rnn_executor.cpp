// The real variant's executor of rnn_plan.h's plans: cuDNN's v8 RNN API, as stock's
// cudnn/RNN.cpp calls it with USE_CUDNN_RNN_V8_API: an RNN descriptor (standard algorithm,
// double bias, linear input, the plan's math precision and type, padded I/O unless the data
// is packed), a dropout descriptor restored over the state _cudnn_init_dropout_state made,
// sequence-major RNN data descriptors with each sequence's length, and hidden and cell
// descriptors (pseudo-layers, batch, width). Forward is cudnnRNNForward in training or
// inference mode, backward cudnnRNNBackwardData_v8 then cudnnRNNBackwardWeights_v8 (adding),
// each on the stream with the calling thread's cuDNN handle for the device; weight_params is
// cudnnGetRNNWeightParams.
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <vector>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_check.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_common.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/rnn_executable.h"

namespace torch_cuda::cudnn {
namespace {

cudnnRNNMode_t cell_mode(RnnMode mode) {
  switch (mode) {
    case RnnMode::kRelu:
      return CUDNN_RNN_RELU;
    case RnnMode::kTanh:
      return CUDNN_RNN_TANH;
    case RnnMode::kLstm:
      return CUDNN_LSTM;
    case RnnMode::kGru:
      return CUDNN_GRU;
  }
  return CUDNN_LSTM;
}

using RnnDesc = Owned<cudnnRNNDescriptor_t, cudnnCreateRNNDescriptor, cudnnDestroyRNNDescriptor>;
using DataDesc = Owned<cudnnRNNDataDescriptor_t, cudnnCreateRNNDataDescriptor, cudnnDestroyRNNDataDescriptor>;
using DropoutDesc = Owned<cudnnDropoutDescriptor_t, cudnnCreateDropoutDescriptor, cudnnDestroyDropoutDescriptor>;
using TensorDesc = Owned<cudnnTensorDescriptor_t, cudnnCreateTensorDescriptor, cudnnDestroyTensorDescriptor>;

// A (pseudo-layers, batch, width) hidden or cell state descriptor.
void set_state(const TensorDesc& desc, const RnnPlan& plan, int width) {
  const int sizes[3] = {plan.pseudo_layers(), plan.batch, width};
  const int strides[3] = {plan.batch * width, width, 1};
  TORCH_CUDNN_CHECK(cudnnSetTensorNdDescriptor(desc.get(), cudnn_data_type(plan.data_type), 3, sizes, strides));
}

void set_data(const DataDesc& desc, const RnnPlan& plan, int vector_size) {
  const cudnnRNNDataLayout_t layout =
      plan.packed ? CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED : CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED;
  TORCH_CUDNN_CHECK(cudnnSetRNNDataDescriptor(desc.get(), cudnn_data_type(plan.data_type), layout,
                                              plan.max_seq_length, plan.batch, vector_size, plan.seq_lengths.data(),
                                              nullptr));
}

class CudnnRnn final : public RnnExecutable {
 public:
  CudnnRnn(const RnnPlan& plan, int device, void* dropout_state, std::int64_t dropout_state_bytes)
      : plan_(plan), handle_(cudnn_handle(device)) {
    if (plan_.dropout > 0) {
      TORCH_CUDNN_CHECK(cudnnRestoreDropoutDescriptor(dropout_.get(), handle_, plan_.dropout, dropout_state,
                                                      static_cast<std::size_t>(dropout_state_bytes), 0));
    } else {
      TORCH_CUDNN_CHECK(cudnnSetDropoutDescriptor(dropout_.get(), handle_, 0.0f, nullptr, 0, 0));
    }
    TORCH_CUDNN_CHECK(cudnnSetRNNDescriptor_v8(
        rnn_.get(), CUDNN_RNN_ALGO_STANDARD, cell_mode(plan_.mode), CUDNN_RNN_DOUBLE_BIAS,
        plan_.directions == 2 ? CUDNN_BIDIRECTIONAL : CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT,
        cudnn_data_type(plan_.data_type), cudnn_data_type(plan_.compute_type), cudnn_math_type(plan_.math_type),
        plan_.input_size, plan_.hidden_size, plan_.proj_size, plan_.num_layers, dropout_.get(),
        plan_.packed ? CUDNN_RNN_PADDED_IO_DISABLED : CUDNN_RNN_PADDED_IO_ENABLED));
    set_data(x_, plan_, plan_.input_size);
    set_data(y_, plan_, plan_.directions * plan_.proj_size);
    set_state(h_, plan_, plan_.proj_size);
    set_state(c_, plan_, plan_.hidden_size);
    TORCH_CUDNN_CHECK(cudnnGetRNNWeightSpaceSize(handle_, rnn_.get(), &weight_bytes_));
    TORCH_CUDNN_CHECK(cudnnGetRNNTempSpaceSizes(handle_, rnn_.get(), mode(), x_.get(), &workspace_bytes_,
                                                plan_.train ? &reserve_bytes_ : nullptr));
  }

  std::int64_t weight_space_size() const override { return static_cast<std::int64_t>(weight_bytes_); }

  WeightRegion weight_params(const void* weight_space, int pseudo_layer, int lin_layer) const override {
    const TensorDesc matrix, bias;
    WeightRegion region;
    TORCH_CUDNN_CHECK(cudnnGetRNNWeightParams(handle_, rnn_.get(), pseudo_layer, weight_bytes_, weight_space,
                                              lin_layer, matrix.get(), &region.matrix, bias.get(), &region.bias));
    // Each comes back as a (1, rows, columns) tensor, a bias with one column.
    const auto dims = [](const TensorDesc& desc) {
      cudnnDataType_t type;
      int count = 0, sizes[3] = {0, 0, 0}, strides[3] = {0, 0, 0};
      TORCH_CUDNN_CHECK(cudnnGetTensorNdDescriptor(desc.get(), 3, &type, &count, sizes, strides));
      if (count != 3 || sizes[0] != 1) {
        throw std::runtime_error("cudnnGetRNNWeightParams described a weight other than as (1, rows, columns)");
      }
      return std::pair<std::int64_t, std::int64_t>(sizes[1], sizes[2]);
    };
    if (region.matrix != nullptr) std::tie(region.rows, region.columns) = dims(matrix);
    if (region.bias != nullptr) {
      const auto [rows, columns] = dims(bias);
      region.bias_size = rows * columns;
    }
    return region;
  }

  std::int64_t workspace_size() const override { return static_cast<std::int64_t>(workspace_bytes_); }
  std::int64_t reserve_size() const override { return static_cast<std::int64_t>(reserve_bytes_); }

  void forward(const RnnBuffers& b, torch_core::StreamHandle stream) const override {
    bind(stream);
    TORCH_CUDNN_CHECK(cudnnRNNForward(handle_, rnn_.get(), mode(), nullptr, x_.get(), b.x, y_.get(), b.y, h_.get(),
                                      b.hx, b.hy, c_.get(), b.cx, b.cy, weight_bytes_, b.weights, workspace_bytes_,
                                      b.workspace, reserve_bytes_, b.reserve));
  }

  void backward_data(const RnnBuffers& b, torch_core::StreamHandle stream) const override {
    bind(stream);
    TORCH_CUDNN_CHECK(cudnnRNNBackwardData_v8(handle_, rnn_.get(), nullptr, y_.get(), b.y, b.dy, x_.get(), b.dx,
                                              h_.get(), b.hx, b.dhy, b.dhx, c_.get(), b.cx, b.dcy, b.dcx,
                                              weight_bytes_, b.weights, workspace_bytes_, b.workspace, reserve_bytes_,
                                              b.reserve));
  }

  void backward_weights(const RnnBuffers& b, torch_core::StreamHandle stream) const override {
    bind(stream);
    TORCH_CUDNN_CHECK(cudnnRNNBackwardWeights_v8(handle_, rnn_.get(), CUDNN_WGRAD_MODE_ADD, nullptr, x_.get(), b.x,
                                                 h_.get(), b.hx, y_.get(), b.y, weight_bytes_, b.dweights,
                                                 workspace_bytes_, b.workspace, reserve_bytes_, b.reserve));
  }

 private:
  cudnnForwardMode_t mode() const { return plan_.train ? CUDNN_FWD_MODE_TRAINING : CUDNN_FWD_MODE_INFERENCE; }
  void bind(torch_core::StreamHandle stream) const {
    TORCH_CUDNN_CHECK(cudnnSetStream(handle_, static_cast<cudaStream_t>(stream)));
  }

  RnnPlan plan_;
  cudnnHandle_t handle_;
  DropoutDesc dropout_;
  RnnDesc rnn_;
  DataDesc x_, y_;
  TensorDesc h_, c_;
  std::size_t weight_bytes_ = 0;
  std::size_t workspace_bytes_ = 0;
  std::size_t reserve_bytes_ = 0;
};

}  // namespace

std::unique_ptr<RnnExecutable> make_rnn_executable(const RnnPlan& plan, void* dropout_state,
                                                   std::int64_t dropout_state_bytes) {
  return std::make_unique<CudnnRnn>(plan, current_device(), dropout_state, dropout_state_bytes);
}

std::int64_t dropout_state_size() {
  std::size_t bytes = 0;
  TORCH_CUDNN_CHECK(cudnnDropoutGetStatesSize(cudnn_handle(current_device()), &bytes));
  return static_cast<std::int64_t>(bytes);
}

void init_dropout_state(void* state, std::int64_t bytes, float dropout, std::uint64_t seed,
                        torch_core::StreamHandle stream) {
  const cudnnHandle_t handle = cudnn_handle(current_device());
  TORCH_CUDNN_CHECK(cudnnSetStream(handle, static_cast<cudaStream_t>(stream)));
  const DropoutDesc desc;
  TORCH_CUDNN_CHECK(cudnnSetDropoutDescriptor(desc.get(), handle, dropout, state, static_cast<std::size_t>(bytes),
                                              static_cast<unsigned long long>(seed)));  // NOLINT(runtime/int)
}

}  // namespace torch_cuda::cudnn
