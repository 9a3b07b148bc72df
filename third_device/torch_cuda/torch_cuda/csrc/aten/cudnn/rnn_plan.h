// The plans of torch_cuda's cuDNN RNNs: everything decided before cuDNN is called, in plain
// host C++ (no CUDA or cuDNN header), so that both variants run the same plan. The CUDA
// key's _cudnn_rnn, _cudnn_rnn_backward and _cudnn_rnn_flatten_weight (cudnn_rnn_ops.cpp)
// describe the call as an RnnCall, as stock's RNNDescriptorParams and TensorDescriptorListParams
// do, and plan it; an executor runs the plan:
//   real       cudnn/cudnn_rnn_executor.cpp: cuDNN's v8 RNN API (cudnnSetRNNDescriptor_v8,
//              RNN data descriptors, cudnnRNNForward, cudnnRNNBackwardData_v8,
//              cudnnRNNBackwardWeights_v8, cudnnGetRNNWeightParams)
//   simulated  simulated/csrc/host_rnn.cpp: the same calls on the host with cuDNN's
//              documented cell equations, gate order and weight space
// so a wrong gate order, direction, sequence length or weight view fails in CI.
//
// Data is sequence-major: unpacked (seq_length, batch, features) with every sequence
// seq_length long, or packed as torch's PackedSequence holds it (time step t keeps the first
// batch_sizes[t] sequences, longest first), which is cuDNN's SEQ_MAJOR_PACKED layout.
#pragma once

#include <cstdint>
#include <vector>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_tensors.h"

namespace torch_cuda::cudnn {

// cuDNN's cell modes, with cudnnRNNMode_t's values: torch passes them as `mode`
// (torch._C._cudnn.RNNMode).
enum class RnnMode : std::int8_t { kRelu = 0, kTanh = 1, kLstm = 2, kGru = 3 };

// The call as the operator sees it.
struct RnnCall {
  RnnMode mode = RnnMode::kLstm;
  DataType data_type = DataType::kFloat;
  std::int64_t input_size = 0;
  std::int64_t hidden_size = 0;
  std::int64_t proj_size = 0;  // 0: no projection (LSTM only)
  std::int64_t num_layers = 1;
  bool bidirectional = false;
  bool packed = false;
  // Sequences present at each time step: one entry per step; unpacked, each is the batch.
  std::vector<std::int64_t> batch_sizes;
  bool train = false;
  double dropout = 0.0;
  bool allow_tf32 = true;  // torch.backends.cudnn.allow_tf32
};

// One cuDNN RNN, its sizes as cuDNN's ints (checked).
struct RnnPlan {
  RnnMode mode = RnnMode::kLstm;
  DataType data_type = DataType::kFloat;
  // The math precision: float for half, bfloat16 and float, double for double.
  DataType compute_type = DataType::kFloat;
  MathType math_type = MathType::kDefault;
  int input_size = 0;
  int hidden_size = 0;
  int proj_size = 0;  // cuDNN's projSize: hidden_size when there is no projection
  int num_layers = 1;
  int directions = 1;
  int gates = 4;  // weight matrices per input: 1 (ReLU, tanh), 3 (GRU), 4 (LSTM)
  bool packed = false;
  int max_seq_length = 0;
  int batch = 0;                      // sequences (the first step's batch size)
  std::vector<int> batch_sizes;       // per time step, non-increasing
  std::vector<int> seq_lengths;       // per sequence: cuDNN's seqLengthArray
  std::int64_t rows = 0;              // time steps summed over sequences: rows of x and y
  bool train = false;
  float dropout = 0.0f;  // between layers, training only

  // The width of each direction's output: the projection's when there is one.
  int output_size() const { return proj_size; }
  // The input width of `layer`.
  int layer_input_size(int layer) const { return layer == 0 ? input_size : directions * proj_size; }
  int pseudo_layers() const { return num_layers * directions; }
  bool projected() const { return proj_size != hidden_size; }
};

// `call` as one cuDNN RNN. Throws std::invalid_argument naming what cuDNN cannot take.
RnnPlan plan_rnn(const RnnCall& call);

// cuDNN's linear layer ids within a pseudo-layer (a layer in one direction): the input
// matrices of each gate, then the recurrent ones, then LSTM's projection.
inline int input_lin_layer(int gate) { return gate; }
inline int recurrent_lin_layer(const RnnPlan& plan, int gate) { return plan.gates + gate; }
inline constexpr int kProjectionLinLayer = 8;

}  // namespace torch_cuda::cudnn
