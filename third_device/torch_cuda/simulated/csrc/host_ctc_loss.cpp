// The simulated variant's executor of ctc_loss_plan.h's plans: the call cuDNN's CTC loss
// would make, run on the host on the stream's worker with its documented semantics:
// - the activations are normalised by a softmax over the alphabet (so torch's
//   log-probabilities give their own probabilities back), label 0 is the blank;
// - each sample's cost is minus the log-likelihood of its labels over its first input-length
//   steps (Graves' forward-backward recursion, in log space and double here);
// - the gradients are with respect to the activations: softmax minus the posterior of each
//   label at each step; zero at the steps past the sample's input length;
// - a sample that cannot align (labels plus repeated neighbours beyond its input length)
//   costs infinity and gets a zero gradient (CUDNN_CTC_ZERO_OOB_GRADIENTS, as planned).
// With device lengths (cudnnCTCLoss_v8) the labels and lengths are read on the worker, and
// one out of range fails the stream's work, as a GPU kernel's fault surfaces at the next
// synchronisation. Runs are recorded under the cuDNN call they stand in for.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "third_device/torch_cuda/simulated/csrc/library_calls.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/ctc_loss_executable.h"
#include "torch_core/csrc/simulated/simulated_device.h"

namespace torch_cuda::cudnn {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

double log_add(double a, double b) {
  if (a == kNegInf) return b;
  if (b == kNegInf) return a;
  const double high = std::max(a, b);
  return high + std::log1p(std::exp(std::min(a, b) - high));
}

// One sample's labels and input length.
struct Sample {
  const int* labels;
  int label_length;
  int input_length;
};

// What the device lengths say, checked as cuDNN's kernels need them.
[[noreturn]] void fault(const std::string& what) {
  throw std::runtime_error("cuDNN CTC loss (cudnnCTCLoss_v8): " + what +
                           "; labels must lie in [1, A - 1] (0 is the blank), input lengths in [1, T], label "
                           "lengths in [0, 255]");
}

class HostCtcLoss final : public CtcLossExecutable {
 public:
  explicit HostCtcLoss(const CtcLossPlan& plan) : plan_(plan) {}

  std::int64_t workspace_size() const override { return 0; }

  void run(const CtcLossBuffers& buffers, torch_core::StreamHandle stream) const override {
    const bool host = plan_.lengths == CtcLengths::kHost;
    simulated::record_library_call(host ? "cudnnCTCLoss" : "cudnnCTCLoss_v8");
    const CtcLossPlan plan = plan_;
    torch_core::simulated_device::enqueue(c10::DeviceType::CUDA, stream, [plan, buffers] { compute(plan, buffers); });
  }

 private:
  static std::vector<Sample> samples(const CtcLossPlan& p, const CtcLossBuffers& b) {
    const bool host = p.lengths == CtcLengths::kHost;
    const int* labels = host ? p.labels.data() : b.labels;
    const int* label_lengths = host ? p.label_lengths.data() : b.label_lengths;
    const int* input_lengths = host ? p.input_lengths.data() : b.input_lengths;
    std::vector<Sample> out;
    std::int64_t offset = 0;
    for (int n = 0; n < p.batch(); ++n) {
      const Sample sample{labels + offset, label_lengths[n], input_lengths[n]};
      if (sample.input_length < 1 || sample.input_length > p.time_steps()) {
        fault("input length " + std::to_string(sample.input_length) + " of sample " + std::to_string(n));
      }
      if (sample.label_length < 0 || sample.label_length > kMaxCtcLabelLength) {
        fault("label length " + std::to_string(sample.label_length) + " of sample " + std::to_string(n));
      }
      if (offset + sample.label_length > p.label_capacity) {
        fault("the label lengths reach past the " + std::to_string(p.label_capacity) + " labels given");
      }
      for (int i = 0; i < sample.label_length; ++i) {
        if (sample.labels[i] < 1 || sample.labels[i] >= p.alphabet()) {
          fault("label " + std::to_string(sample.labels[i]) + " of sample " + std::to_string(n));
        }
      }
      offset += sample.label_length;
      out.push_back(sample);
    }
    return out;
  }

  static void compute(const CtcLossPlan& p, const CtcLossBuffers& b) {
    const std::vector<Sample> all = samples(p, b);
    auto* costs = static_cast<float*>(b.costs);
    auto* gradients = static_cast<float*>(b.gradients);
    std::fill(gradients, gradients + static_cast<std::int64_t>(p.time_steps()) * p.batch() * p.alphabet(), 0.0f);
    for (int n = 0; n < p.batch(); ++n) costs[n] = static_cast<float>(sample_cost(p, b, n, all[n], gradients));
  }

  // The log-softmax of sample n's activations over its input length: [t][k].
  static std::vector<std::vector<double>> log_softmax(const CtcLossPlan& p, const void* activations, int n,
                                                      int steps) {
    const auto* a = static_cast<const float*>(activations);
    std::vector<std::vector<double>> out(steps, std::vector<double>(p.alphabet()));
    for (int t = 0; t < steps; ++t) {
      const std::int64_t row =
          static_cast<std::int64_t>(t) * p.strides[0] + static_cast<std::int64_t>(n) * p.strides[1];
      double total = kNegInf;
      for (int k = 0; k < p.alphabet(); ++k) {
        out[t][k] = a[row + static_cast<std::int64_t>(k) * p.strides[2]];
        total = log_add(total, out[t][k]);
      }
      for (double& value : out[t]) value -= total;
    }
    return out;
  }

  // Sample n's cost; its gradient rows written into `gradients` (left zero when it cannot
  // align).
  static double sample_cost(const CtcLossPlan& p, const CtcLossBuffers& b, int n, const Sample& s, float* gradients) {
    const int steps = s.input_length, length = s.label_length;
    int repeats = 0;
    for (int i = 1; i < length; ++i) repeats += s.labels[i] == s.labels[i - 1] ? 1 : 0;
    if (length + repeats > steps) return std::numeric_limits<double>::infinity();
    // The extended labels: blank, l1, blank, l2, ..., blank.
    const int states = 2 * length + 1;
    const auto label_at = [&](int state) { return state % 2 == 0 ? 0 : s.labels[state / 2]; };
    // A label may follow the one before the blank between them unless they are the same.
    const auto skips = [&](int state) {
      return state >= 2 && label_at(state) != 0 && label_at(state) != label_at(state - 2);
    };
    const auto lp = log_softmax(p, b.activations, n, steps);
    std::vector<std::vector<double>> alpha(steps, std::vector<double>(states, kNegInf)), beta = alpha;
    alpha[0][0] = lp[0][0];
    if (states > 1) alpha[0][1] = lp[0][label_at(1)];
    for (int t = 1; t < steps; ++t) {
      for (int state = 0; state < states; ++state) {
        double sum = alpha[t - 1][state];
        if (state >= 1) sum = log_add(sum, alpha[t - 1][state - 1]);
        if (skips(state)) sum = log_add(sum, alpha[t - 1][state - 2]);
        alpha[t][state] = sum == kNegInf ? kNegInf : sum + lp[t][label_at(state)];
      }
    }
    beta[steps - 1][states - 1] = lp[steps - 1][0];
    if (states > 1) beta[steps - 1][states - 2] = lp[steps - 1][label_at(states - 2)];
    for (int t = steps - 2; t >= 0; --t) {
      for (int state = states - 1; state >= 0; --state) {
        double sum = beta[t + 1][state];
        if (state + 1 < states) sum = log_add(sum, beta[t + 1][state + 1]);
        if (state + 2 < states && skips(state + 2)) sum = log_add(sum, beta[t + 1][state + 2]);
        beta[t][state] = sum == kNegInf ? kNegInf : sum + lp[t][label_at(state)];
      }
    }
    double likelihood = alpha[steps - 1][states - 1];
    if (states > 1) likelihood = log_add(likelihood, alpha[steps - 1][states - 2]);
    // d cost / d activation = softmax - posterior; alpha and beta both hold the step's
    // emission, so the posterior of label k is sum(alpha * beta) / (y_k * likelihood).
    for (int t = 0; t < steps; ++t) {
      std::vector<double> collected(p.alphabet(), kNegInf);
      for (int state = 0; state < states; ++state) {
        collected[label_at(state)] = log_add(collected[label_at(state)], alpha[t][state] + beta[t][state]);
      }
      float* row = gradients + (static_cast<std::int64_t>(t) * p.batch() + n) * p.alphabet();
      for (int k = 0; k < p.alphabet(); ++k) {
        row[k] = static_cast<float>(std::exp(lp[t][k]) - std::exp(collected[k] - lp[t][k] - likelihood));
      }
    }
    return -likelihood;
  }

  CtcLossPlan plan_;
};

}  // namespace

std::unique_ptr<CtcLossExecutable> make_ctc_loss_executable(const CtcLossPlan& plan) {
  return std::make_unique<HostCtcLoss>(plan);
}

}  // namespace torch_cuda::cudnn
