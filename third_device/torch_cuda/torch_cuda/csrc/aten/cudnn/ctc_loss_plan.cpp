#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/ctc_loss_plan.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_tensors.h"

namespace torch_cuda::cudnn {
namespace {

constexpr const char* kPlan = "cuDNN CTC loss plan";

[[noreturn]] void refuse(const std::string& what) { cudnn::refuse(kPlan, what); }

int as_int(std::int64_t value, const char* what) { return as_cudnn_int(kPlan, value, what); }

// `values` as ints, each in [low, high]; `what` names one in a refusal.
std::vector<int> checked(const std::vector<std::int64_t>& values, std::int64_t low, std::int64_t high,
                         const char* what) {
  std::vector<int> out;
  out.reserve(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (values[i] < low || values[i] > high) {
      refuse(std::string(what) + " " + std::to_string(values[i]) + " at position " + std::to_string(i) +
             " is outside [" + std::to_string(low) + ", " + std::to_string(high) + "]");
    }
    out.push_back(static_cast<int>(values[i]));
  }
  return out;
}

void plan_host_lengths(const CtcLossCall& call, CtcLossPlan& plan) {
  const auto batch = static_cast<std::size_t>(plan.batch());
  if (call.input_lengths.size() != batch || call.label_lengths.size() != batch) {
    refuse("the input and label lengths number " + std::to_string(call.input_lengths.size()) + " and " +
           std::to_string(call.label_lengths.size()) + " samples, the batch " + std::to_string(batch));
  }
  plan.input_lengths = checked(call.input_lengths, 1, plan.time_steps(), "input length");
  plan.label_lengths = checked(call.label_lengths, 0, kMaxCtcLabelLength, "label length");
  std::int64_t total = 0;
  for (const int length : plan.label_lengths) total += length;
  if (total > static_cast<std::int64_t>(call.labels.size())) {
    refuse("the label lengths add up to " + std::to_string(total) + " labels, the targets hold only " +
           std::to_string(call.labels.size()));
  }
  // Label 0 is cuDNN's blank. Targets past the lengths' sum are not read (as cuDNN reads them).
  const std::vector<std::int64_t> read(call.labels.begin(), call.labels.begin() + total);
  plan.labels = checked(read, 1, plan.alphabet() - 1, "label");
}

}  // namespace

CtcLossPlan plan_ctc_loss(const CtcLossCall& call) {
  CtcLossPlan plan;
  std::int64_t elements = 1;
  for (int d = 0; d < 3; ++d) {
    if (call.sizes[d] <= 0) refuse("the activations (T, N, A) have a dimension of size 0");
    elements *= call.sizes[d];
    plan.sizes[d] = as_int(call.sizes[d], "a size");
    plan.strides[d] = as_int(call.strides[d], "a stride");
  }
  as_int(elements, "the activations' element count");
  if (plan.alphabet() < 2) refuse("the alphabet holds only the blank (A = 1)");
  plan.lengths = call.lengths;
  plan.deterministic = call.deterministic;
  if (call.lengths == CtcLengths::kHost) {
    plan_host_lengths(call, plan);
    plan.label_capacity = static_cast<std::int64_t>(plan.labels.size());
  } else {
    if (call.label_capacity < 0) refuse("a negative label count");
    plan.label_capacity = call.label_capacity;
  }
  return plan;
}

}  // namespace torch_cuda::cudnn
