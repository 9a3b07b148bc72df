// The cuDNN CTC loss plans and executor (third_device/torch_cuda/torch_cuda/csrc/aten/cudnn),
// torch-free.
//
// Everywhere: plan_ctc_loss's checks. With a GPU: cudnnCTCLoss (host lengths) and
// cudnnCTCLoss_v8 (device lengths) over unnormalised activations laid out batch-major
// (strides other than (T, N, A)'s dense ones), against the costs and gradients computed on
// the host by definition: the softmax of each step, the likelihood summed over every path
// of the alphabet that collapses to the labels, and the gradient softmax minus each label's
// posterior; a sample that cannot align costs infinity and gets a zero gradient. Without
// one: says why, and checks that making an executable fails with a clear error.
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/gpu/cudnn_engines.h"
#include "tests/gpu/test_util.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/ctc_loss_executable.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/ctc_loss_plan.h"

namespace {

using gpu_test::check;
using gpu_test::contains;
namespace cudnn = torch_cuda::cudnn;
using cudnn::CtcLengths;

constexpr int kSteps = 4, kAlphabet = 3;

// Four samples: two labels, a repeated label (needs a blank between), one label over three
// steps, and three repeats that cannot align in four steps.
const std::vector<std::vector<int>> kLabels = {{1, 2}, {1, 1}, {2}, {1, 1, 1}};
const std::vector<int> kInputLengths = {4, 4, 3, 4};
constexpr int kBatch = 4;

// Activations stored batch-major: (N, T, A) memory read as (T, N, A).
cudnn::CtcLossCall call_of(CtcLengths lengths) {
  cudnn::CtcLossCall call;
  call.sizes = {kSteps, kBatch, kAlphabet};
  call.strides = {kAlphabet, kSteps * kAlphabet, 1};
  call.lengths = lengths;
  for (std::size_t n = 0; n < kLabels.size(); ++n) {
    call.labels.insert(call.labels.end(), kLabels[n].begin(), kLabels[n].end());
    call.label_lengths.push_back(static_cast<std::int64_t>(kLabels[n].size()));
    call.input_lengths.push_back(kInputLengths[n]);
  }
  call.label_capacity = static_cast<std::int64_t>(call.labels.size());
  return call;
}

std::string refusal(const cudnn::CtcLossCall& call, const std::string& what) {
  return gpu_test::thrown<std::invalid_argument>([&] { cudnn::plan_ctc_loss(call); }, what);
}

void plan_checks() {
  const cudnn::CtcLossPlan plan = cudnn::plan_ctc_loss(call_of(CtcLengths::kHost));
  check(plan.strides[0] == kAlphabet && plan.strides[1] == kSteps * kAlphabet, "the activations' own strides");
  check(plan.labels.size() == 8 && plan.labels[2] == 1 && plan.label_lengths[3] == 3, "the labels, concatenated");
  check(plan.label_capacity == 8, "the label count");
  const auto refused = [](cudnn::CtcLossCall call, const std::string& fragment, const std::string& what) {
    check(contains(refusal(call, what), fragment), what + " refused");
  };
  cudnn::CtcLossCall call = call_of(CtcLengths::kHost);
  call.sizes[1] = 0;
  refused(call, "size 0", "an empty batch");
  call = call_of(CtcLengths::kHost);
  call.sizes[2] = 1;
  refused(call, "only the blank", "an alphabet of the blank alone");
  call = call_of(CtcLengths::kHost);
  call.input_lengths.pop_back();
  refused(call, "number 3 and 4 samples", "a missing input length");
  call = call_of(CtcLengths::kHost);
  call.input_lengths[1] = kSteps + 1;
  refused(call, "input length 5 at position 1", "an input longer than T");
  call = call_of(CtcLengths::kHost);
  call.input_lengths[0] = 0;
  refused(call, "input length 0", "an empty input");
  call = call_of(CtcLengths::kHost);
  call.label_lengths[0] = 256;
  refused(call, "label length 256", "labels longer than cuDNN's 255");
  call = call_of(CtcLengths::kHost);
  call.labels.pop_back();
  refused(call, "add up to 8 labels, the targets hold only 7", "labels short of their lengths");
  call = call_of(CtcLengths::kHost);
  call.labels.push_back(0);  // padding past the lengths' sum: not read, not checked
  check(cudnn::plan_ctc_loss(call).labels.size() == 8, "targets past the lengths' sum are left out");
  call = call_of(CtcLengths::kHost);
  call.labels[0] = 0;
  refused(call, "label 0 at position 0", "the blank as a label");
  call.labels[0] = kAlphabet;
  refused(call, "label 3 at position 0", "a label beyond the alphabet");
  call = call_of(CtcLengths::kHost);
  call.strides[1] = std::int64_t{1} << 40;
  refused(call, "exceeds cuDNN's int", "a stride beyond int");
  call = call_of(CtcLengths::kDevice);
  call.labels.clear();  // device lengths: the plan holds no labels and checks none
  check(cudnn::plan_ctc_loss(call).labels.empty(), "device lengths are not read by the plan");
  call.label_capacity = -1;
  refused(call, "negative label count", "a negative label count");
}

// ---- device -------------------------------------------------------------------------------

struct Reference {
  std::vector<double> costs;      // N
  std::vector<double> gradients;  // T x N x A, dense
};

// Each sample's paths enumerated: kAlphabet^steps of them.
Reference reference(const std::vector<double>& activations) {
  Reference r{std::vector<double>(kBatch), std::vector<double>(kSteps * kBatch * kAlphabet, 0.0)};
  for (int n = 0; n < kBatch; ++n) {
    const int steps = kInputLengths[n];
    std::vector<std::vector<double>> y(steps, std::vector<double>(kAlphabet));
    for (int t = 0; t < steps; ++t) {
      double total = 0;
      for (int k = 0; k < kAlphabet; ++k) total += std::exp(activations[(n * kSteps + t) * kAlphabet + k]);
      for (int k = 0; k < kAlphabet; ++k) y[t][k] = std::exp(activations[(n * kSteps + t) * kAlphabet + k]) / total;
    }
    double likelihood = 0;
    std::vector<std::vector<double>> through(steps, std::vector<double>(kAlphabet, 0.0));
    int paths = 1;
    for (int t = 0; t < steps; ++t) paths *= kAlphabet;
    for (int code = 0; code < paths; ++code) {
      std::vector<int> path(steps), collapsed;
      for (int t = 0, rest = code; t < steps; ++t, rest /= kAlphabet) path[t] = rest % kAlphabet;
      for (int t = 0; t < steps; ++t) {
        if (path[t] != 0 && (t == 0 || path[t] != path[t - 1])) collapsed.push_back(path[t]);
      }
      if (collapsed != kLabels[n]) continue;
      double probability = 1;
      for (int t = 0; t < steps; ++t) probability *= y[t][path[t]];
      likelihood += probability;
      for (int t = 0; t < steps; ++t) through[t][path[t]] += probability;
    }
    r.costs[n] = likelihood > 0 ? -std::log(likelihood) : std::numeric_limits<double>::infinity();
    if (likelihood == 0) continue;
    for (int t = 0; t < steps; ++t) {
      for (int k = 0; k < kAlphabet; ++k) {
        r.gradients[(t * kBatch + n) * kAlphabet + k] = y[t][k] - through[t][k] / likelihood;
      }
    }
  }
  return r;
}

void run_case(CtcLengths lengths, cudaStream_t stream, const std::string& name) {
  const cudnn::CtcLossCall call = call_of(lengths);
  std::vector<double> activations(kBatch * kSteps * kAlphabet);
  for (std::size_t i = 0; i < activations.size(); ++i) activations[i] = static_cast<double>((i * 7) % 11) / 4.0 - 1.2;
  const Reference want = reference(activations);
  std::vector<int> labels(call.labels.begin(), call.labels.end()), label_lengths, input_lengths(kInputLengths);
  for (const auto& l : kLabels) label_lengths.push_back(static_cast<int>(l.size()));
  gpu_test::DeviceBuffer<float> d_activations(gpu_test::converted<float>(activations)),
      d_costs{std::vector<float>(kBatch)}, d_gradients{std::vector<float>(want.gradients.size(), 7.0f)};
  gpu_test::DeviceBuffer<int> d_labels(labels), d_label_lengths(label_lengths), d_input_lengths(input_lengths);
  const auto executable = cudnn::make_ctc_loss_executable(cudnn::plan_ctc_loss(call));
  gpu_test::DeviceBuffer<char> workspace{std::vector<char>(static_cast<std::size_t>(executable->workspace_size()))};
  cudnn::CtcLossBuffers b;
  b.activations = d_activations.get();
  b.costs = d_costs.get();
  b.gradients = d_gradients.get();
  b.labels = d_labels.get();
  b.label_lengths = d_label_lengths.get();
  b.input_lengths = d_input_lengths.get();
  b.workspace = workspace.get();
  executable->run(b, stream);
  gpu_test::cuda_ok(cudaStreamSynchronize(stream), "sync");
  const std::vector<float> costs = d_costs.to_host(), gradients = d_gradients.to_host();
  for (int n = 0; n < kBatch; ++n) {
    const bool aligns = std::isfinite(want.costs[n]);
    check(aligns ? std::fabs(costs[n] - want.costs[n]) <= 1e-4 : std::isinf(costs[n]) && costs[n] > 0,
          name + ": cost of sample " + std::to_string(n));
  }
  // Within a sample's input length: softmax minus posterior, or zero (over the 7s the buffer
  // held) for the sample that cannot align.
  for (int n = 0; n < kBatch; ++n) {
    for (int t = 0; t < kSteps; ++t) {
      if (t >= kInputLengths[n]) continue;  // cuDNN leaves the steps past the input unspecified
      for (int k = 0; k < kAlphabet; ++k) {
        const std::size_t at = (t * kBatch + n) * kAlphabet + k;
        check(std::fabs(gradients[at] - want.gradients[at]) <= 1e-4,
              name + ": gradient of sample " + std::to_string(n) + " at step " + std::to_string(t));
      }
    }
  }
}

void device_checks(cudaStream_t stream) {
  gpu_test::load_cudnn_engine_libraries();
  run_case(CtcLengths::kHost, stream, "cudnnCTCLoss, host lengths");
  run_case(CtcLengths::kDevice, stream, "cudnnCTCLoss_v8, device lengths");
}

void no_device_checks() {
  const std::string message = gpu_test::thrown<std::runtime_error>(
      [&] { cudnn::make_ctc_loss_executable(cudnn::plan_ctc_loss(call_of(CtcLengths::kHost))); },
      "a CTC loss executable without a GPU");
  check(contains(message, "CUDA") || contains(message, "cuDNN"), "the no-device error names CUDA or cuDNN: " + message);
}

}  // namespace

int main() {
  return gpu_test::run("cuDNN CTC loss", "cuDNN not run; CTC loss plans and no-device behaviour checked", plan_checks,
                       no_device_checks, device_checks);
}
