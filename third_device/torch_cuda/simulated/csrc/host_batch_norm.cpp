// The simulated variant's executor of batch_norm_plan.h's plans: the call cuDNN would make,
// run on the host on the stream's worker with cuDNN's documented semantics. Statistics are
// per channel over N and the spatial dimensions (the spatial modes) or per activation over
// N; training normalises with the batch's mean and biased variance, saves the mean and the
// inverse standard deviation 1 / sqrt(var + epsilon), and, when asked, averages the
// running mean and the unbiased variance (times m / (m - 1)) in with the factor;
// inference normalises with the running statistics; backward takes the saved ones. Every
// element is read and written through the input descriptor's strides (dy and dx share
// them). Sums are in double, each result rounded once to its type. Runs are recorded
// under the cuDNN calls they stand in for (library_calls.h).
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include "third_device/torch_cuda/simulated/csrc/host_index.h"
#include "third_device/torch_cuda/simulated/csrc/library_calls.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/batch_norm_executable.h"
#include "torch_core/csrc/simulated/simulated_device.h"

namespace torch_cuda::cudnn {
namespace {

using simulated::advance;
using simulated::Index;
using simulated::offset_of;

constexpr const char* kRunCalls[3] = {"cudnnBatchNormalizationForwardTrainingEx",
                                      "cudnnBatchNormalizationForwardInference", "cudnnBatchNormalizationBackwardEx"};

// T is the data's type, P the parameters' (float, or double for double data).
template <typename T, typename P>
class HostBatchNorm final : public BatchNormExecutable {
 public:
  explicit HostBatchNorm(const BatchNormPlan& plan) : plan_(plan) {}

  std::int64_t workspace_size() const override { return 0; }
  std::int64_t reserve_size() const override { return 0; }

  void run(const BatchNormBuffers& buffers, torch_core::StreamHandle stream) const override {
    simulated::record_library_call(kRunCalls[static_cast<int>(plan_.pass)]);
    const BatchNormPlan plan = plan_;
    torch_core::simulated_device::enqueue(c10::DeviceType::CUDA, stream, [plan, buffers] { compute(plan, buffers); });
  }

 private:
  static double load(const void* base, std::int64_t offset) { return simulated::load_element<T>(base, offset); }
  static void store(void* base, std::int64_t offset, double value) {
    simulated::store_element<T>(base, offset, value);
  }
  static double param(const void* base, std::int64_t feature) { return simulated::load_element<P>(base, feature); }
  static void store_param(void* base, std::int64_t feature, double value) {
    simulated::store_element<P>(base, feature, value);
  }

  // Calls visit(feature, offset) for every element: its channel (or, per activation, its
  // channel and spatial position) and its offset through the descriptor's strides.
  template <typename Visit>
  static void for_each(const BatchNormPlan& plan, Visit&& visit) {
    Index index{};
    do {
      std::int64_t feature = index[1];
      if (plan.mode == BatchNormMode::kPerActivation) {
        for (int d = 2; d < plan.dims; ++d) feature = feature * plan.x_sizes[d] + index[d];
      }
      visit(feature, offset_of(index, plan.x_strides, plan.dims));
    } while (advance(index, plan.x_sizes, plan.dims));
  }

  static void compute(const BatchNormPlan& plan, const BatchNormBuffers& b) {
    const std::int64_t features = parameter_count(plan);
    const double m = static_cast<double>(simulated::element_count(plan.x_sizes, plan.dims) / features);
    std::vector<double> mean(features), inv_std(features);
    switch (plan.pass) {
      case BatchNormPass::kForwardInference:
        for (std::int64_t f = 0; f < features; ++f) {
          mean[f] = param(b.running_mean, f);
          inv_std[f] = 1.0 / std::sqrt(param(b.running_var, f) + plan.epsilon);
        }
        break;
      case BatchNormPass::kForwardTraining: {
        for_each(plan, [&](std::int64_t f, std::int64_t at) { mean[f] += load(b.x, at); });
        for (auto& sum : mean) sum /= m;
        std::vector<double> squares(features);
        for_each(plan, [&](std::int64_t f, std::int64_t at) {
          const double centred = load(b.x, at) - mean[f];
          squares[f] += centred * centred;
        });
        const double factor = plan.exponential_average_factor;
        for (std::int64_t f = 0; f < features; ++f) {
          inv_std[f] = 1.0 / std::sqrt(squares[f] / m + plan.epsilon);
          store_param(b.saved_mean, f, mean[f]);
          store_param(b.saved_inv_std, f, inv_std[f]);
          if (!plan.update_running_stats) continue;
          store_param(b.running_mean, f, (1.0 - factor) * param(b.running_mean, f) + factor * mean[f]);
          store_param(b.running_var, f, (1.0 - factor) * param(b.running_var, f) + factor * squares[f] / (m - 1.0));
        }
        break;
      }
      case BatchNormPass::kBackward: {
        std::vector<double> dy_sum(features), dy_xhat_sum(features);
        for (std::int64_t f = 0; f < features; ++f) {
          mean[f] = param(b.saved_mean, f);
          inv_std[f] = param(b.saved_inv_std, f);
        }
        for_each(plan, [&](std::int64_t f, std::int64_t at) {
          const double dy = load(b.dy, at);
          dy_sum[f] += dy;
          dy_xhat_sum[f] += dy * (load(b.x, at) - mean[f]) * inv_std[f];
        });
        for_each(plan, [&](std::int64_t f, std::int64_t at) {
          const double xhat = (load(b.x, at) - mean[f]) * inv_std[f];
          const double dx = load(b.dy, at) - dy_sum[f] / m - xhat * dy_xhat_sum[f] / m;
          store(b.dx, at, param(b.scale, f) * inv_std[f] * dx);
        });
        for (std::int64_t f = 0; f < features; ++f) {
          store_param(b.scale_grad, f, dy_xhat_sum[f]);
          store_param(b.bias_grad, f, dy_sum[f]);
        }
        return;
      }
    }
    for_each(plan, [&](std::int64_t f, std::int64_t at) {
      store(b.y, at, param(b.scale, f) * (load(b.x, at) - mean[f]) * inv_std[f] + param(b.bias, f));
    });
  }

  BatchNormPlan plan_;
};

}  // namespace

std::unique_ptr<BatchNormExecutable> make_batch_norm_executable(const BatchNormPlan& plan) {
  switch (plan.data_type) {
    case DataType::kHalf:
      return std::make_unique<HostBatchNorm<c10::Half, float>>(plan);
    case DataType::kBFloat16:
      return std::make_unique<HostBatchNorm<c10::BFloat16, float>>(plan);
    case DataType::kFloat:
      return std::make_unique<HostBatchNorm<float, float>>(plan);
    case DataType::kDouble:
      return std::make_unique<HostBatchNorm<double, double>>(plan);
  }
  return nullptr;
}

}  // namespace torch_cuda::cudnn
