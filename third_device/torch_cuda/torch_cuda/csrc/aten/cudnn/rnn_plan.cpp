#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/rnn_plan.h"

#include <string>

namespace torch_cuda::cudnn {
namespace {

constexpr const char* kPlan = "cuDNN RNN plan";

int gates_of(RnnMode mode) {
  switch (mode) {
    case RnnMode::kLstm:
      return 4;
    case RnnMode::kGru:
      return 3;
    case RnnMode::kRelu:
    case RnnMode::kTanh:
      return 1;
  }
  refuse(kPlan, "unknown mode");
}

// Stock's math type for its v8 RNN descriptor: tensor cores for half, plain arithmetic when
// torch.backends.cudnn.allow_tf32 is off, cuDNN's default (TF32 for float) otherwise.
MathType math_type_of(const RnnCall& call) {
  if (call.data_type == DataType::kHalf) return MathType::kTensorOp;
  return call.allow_tf32 ? MathType::kDefault : MathType::kFma;
}

}  // namespace

RnnPlan plan_rnn(const RnnCall& call) {
  RnnPlan plan;
  plan.mode = call.mode;
  plan.gates = gates_of(call.mode);
  plan.data_type = call.data_type;
  plan.compute_type = call.data_type == DataType::kDouble ? DataType::kDouble : DataType::kFloat;
  plan.math_type = math_type_of(call);
  if (call.hidden_size <= 0) refuse(kPlan, "hidden_size must be positive, got " + std::to_string(call.hidden_size));
  if (call.num_layers <= 0) refuse(kPlan, "num_layers must be positive, got " + std::to_string(call.num_layers));
  if (call.proj_size < 0 || call.proj_size >= call.hidden_size) {
    refuse(kPlan, "proj_size must be in [0, hidden_size), got " + std::to_string(call.proj_size));
  }
  if (call.proj_size != 0 && call.mode != RnnMode::kLstm) refuse(kPlan, "only LSTM takes a projection");
  plan.input_size = as_cudnn_int(kPlan, call.input_size, "input size");
  plan.hidden_size = as_cudnn_int(kPlan, call.hidden_size, "hidden size");
  plan.proj_size = call.proj_size == 0 ? plan.hidden_size : as_cudnn_int(kPlan, call.proj_size, "projection size");
  plan.num_layers = as_cudnn_int(kPlan, call.num_layers, "layer count");
  plan.directions = call.bidirectional ? 2 : 1;
  plan.packed = call.packed;
  if (call.batch_sizes.empty()) refuse(kPlan, "the input has no time steps");
  plan.max_seq_length = as_cudnn_int(kPlan, static_cast<std::int64_t>(call.batch_sizes.size()), "sequence length");
  plan.batch = as_cudnn_int(kPlan, call.batch_sizes.front(), "batch size");
  if (plan.batch <= 0) refuse(kPlan, "the batch is empty");
  plan.seq_lengths.assign(plan.batch, 0);
  std::int64_t previous = plan.batch;
  for (const std::int64_t size : call.batch_sizes) {
    if (size <= 0 || size > previous) {
      refuse(kPlan, "batch sizes must be positive and non-increasing (sequences sorted longest first), got " +
                        std::to_string(size) + " after " + std::to_string(previous));
    }
    previous = size;
    plan.batch_sizes.push_back(static_cast<int>(size));
    plan.rows += size;
    for (int b = 0; b < size; ++b) ++plan.seq_lengths[b];
  }
  plan.train = call.train;
  plan.dropout = call.train ? static_cast<float>(call.dropout) : 0.0f;
  if (plan.dropout < 0.0f || plan.dropout > 1.0f) refuse(kPlan, "dropout must be in [0, 1]");
  return plan;
}

}  // namespace torch_cuda::cudnn
