// The simulated variant's executor of attention_plan.h's plans: what cuDNN's SDPA graphs
// compute, run on the host on the stream's worker:
// - forward: scores S = scale * Q K^T + bias, the causal mask aligned top left (key j is
//   hidden from query i when j > i), statistics L = the log-sum-exp of each row, P = exp(S
//   - L), with dropout Z = P * keep / (1 - p), rounded to the data type (as the kernel feeds
//   it to its second matrix product), O = Z V; a row with no visible key writes zeros and
//   an infinite-negative statistic;
// - backward from O, dO and L: dV = Z^T dO, dP = (dO V^T) * keep / (1 - p),
//   dS = P (dP - rowsum(dO * O)), dQ = scale * dS K, dK = scale * dS^T Q, summed over the
//   query heads that share a key head.
// Dropout keeps score (n, h, i, j) where the first draw of Philox4x32-10 subsequence
// ((n * Hq + h) * Sq + i) * Skv + j at the call's seed and offset, as a uniform in (0, 1],
// exceeds p: forward and backward read the same seed and offset, so they agree. (cuDNN's own
// stream of draws is its own; the simulated variant promises only a mask of rate p that
// both passes share.)
// Inputs are read through their strides, sums are in double, results rounded once.
// Runs are recorded under the frontend's graph operations they stand in for.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <vector>

#include <ATen/core/PhiloxRNGEngine.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include "third_device/torch_cuda/simulated/csrc/host_index.h"
#include "third_device/torch_cuda/simulated/csrc/library_calls.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/attention_executable.h"
#include "torch_core/csrc/simulated/simulated_device.h"

namespace torch_cuda::cudnn {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

std::int64_t at(const AttentionTensor& t, std::int64_t b, std::int64_t h, std::int64_t i, std::int64_t d) {
  // A broadcast (size 1) dimension reads index 0.
  const auto index = [&](int dim, std::int64_t value) { return t.sizes[dim] == 1 ? 0 : value; };
  return index(0, b) * t.strides[0] + index(1, h) * t.strides[1] + i * t.strides[2] + d * t.strides[3];
}

// Which scores a pass's dropout keeps, and the factor of each (1 without dropout).
class DropoutMask {
 public:
  DropoutMask(const AttentionPlan& p, const AttentionBuffers& b) : p_(p) {
    if (p.dropout > 0.0) {  // read when the pass runs: a replayed graph's words are fresh
      seed_ = *static_cast<const std::uint64_t*>(b.dropout_seed);
      offset_ = *static_cast<const std::uint64_t*>(b.dropout_offset);
    }
  }

  double factor(std::int64_t n, std::int64_t h, std::int64_t i, std::int64_t j) const {
    if (p_.dropout == 0.0) return 1.0;
    const auto score = static_cast<std::uint64_t>(((n * p_.q.sizes[1] + h) * p_.q.sizes[2] + i) * p_.k.sizes[2] + j);
    at::philox_engine engine(seed_, score, offset_ / 4);  // the offset counts 32-bit draws
    const double uniform = static_cast<double>((engine() >> 8) + 1) / 16777216.0;
    return uniform > p_.dropout ? 1.0 / (1.0 - p_.dropout) : 0.0;
  }

 private:
  const AttentionPlan& p_;
  std::uint64_t seed_ = 0;
  std::uint64_t offset_ = 0;
};

template <typename T>
class HostAttention final : public AttentionExecutable {
 public:
  explicit HostAttention(const AttentionPlan& plan) : plan_(plan) {}

  std::int64_t workspace_size() const override { return 0; }

  void run(const AttentionBuffers& buffers, torch_core::StreamHandle stream) const override {
    const bool forward = plan_.pass == AttentionPass::kForward;
    simulated::record_library_call(forward ? "cudnn_frontend::sdpa" : "cudnn_frontend::sdpa_backward");
    const AttentionPlan plan = plan_;
    torch_core::simulated_device::enqueue(c10::DeviceType::CUDA, stream, [plan, buffers, forward] {
      forward ? attend(plan, buffers) : backward(plan, buffers);
    });
  }

 private:
  static double load(const void* base, std::int64_t offset) { return simulated::load_element<T>(base, offset); }
  static double rounded(double value) { return static_cast<double>(static_cast<T>(static_cast<float>(value))); }

  // Row i's scores against every key for query head h of batch b (masked ones -inf).
  static std::vector<double> scores(const AttentionPlan& p, const AttentionBuffers& b, std::int64_t n,
                                    std::int64_t h, std::int64_t i) {
    const std::int64_t g = h / (p.q.sizes[1] / p.k.sizes[1]);
    std::vector<double> s(p.k.sizes[2], kNegInf);
    for (std::int64_t j = 0; j < p.k.sizes[2]; ++j) {
      if (p.causal && j > i) continue;
      double dot = 0.0;
      for (std::int64_t d = 0; d < p.q.sizes[3]; ++d) {
        dot += load(b.q, at(p.q, n, h, i, d)) * load(b.k, at(p.k, n, g, j, d));
      }
      s[j] = p.scale * dot + (p.has_bias ? load(b.bias, at(p.bias, n, h, i, j)) : 0.0);
    }
    return s;
  }

  static std::int64_t stats_at(const AttentionPlan& p, std::int64_t n, std::int64_t h, std::int64_t i) {
    return (n * p.q.sizes[1] + h) * p.q.sizes[2] + i;
  }

  static void attend(const AttentionPlan& p, const AttentionBuffers& b) {
    auto* stats = static_cast<float*>(b.stats);
    const DropoutMask keep(p, b);
    for (std::int64_t n = 0; n < p.q.sizes[0]; ++n) {
      for (std::int64_t h = 0; h < p.q.sizes[1]; ++h) {
        const std::int64_t g = h / (p.q.sizes[1] / p.k.sizes[1]);
        for (std::int64_t i = 0; i < p.q.sizes[2]; ++i) {
          const std::vector<double> s = scores(p, b, n, h, i);
          double high = kNegInf, sum = 0.0;
          for (const double value : s) high = std::max(high, value);
          for (const double value : s) sum += high == kNegInf ? 0.0 : std::exp(value - high);
          const double lse = high == kNegInf ? kNegInf : high + std::log(sum);
          if (p.stats) stats[stats_at(p, n, h, i)] = static_cast<float>(lse);
          std::vector<double> z(s.size(), 0.0);  // the dropped probabilities, rounded
          for (std::size_t j = 0; j < s.size() && lse != kNegInf; ++j) {
            z[j] = rounded(std::exp(s[j] - lse) * keep.factor(n, h, i, static_cast<std::int64_t>(j)));
          }
          for (std::int64_t d = 0; d < p.v.sizes[3]; ++d) {
            double out = 0.0;
            for (std::size_t j = 0; j < s.size(); ++j) {
              out += z[j] * load(b.v, at(p.v, n, g, static_cast<std::int64_t>(j), d));
            }
            simulated::store_element<T>(b.o, at(p.o, n, h, i, d), out);
          }
        }
      }
    }
  }

  static void backward(const AttentionPlan& p, const AttentionBuffers& b) {
    const auto* stats = static_cast<const float*>(b.stats);
    const std::int64_t kv_heads = p.k.sizes[1], s_kv = p.k.sizes[2], d_qk = p.q.sizes[3], d_v = p.v.sizes[3];
    const std::int64_t group = p.q.sizes[1] / kv_heads;
    const DropoutMask keep(p, b);
    for (std::int64_t n = 0; n < p.q.sizes[0]; ++n) {
      // dK and dV of this batch, summed over each key head's query heads.
      std::vector<double> dk(kv_heads * s_kv * d_qk, 0.0), dv(kv_heads * s_kv * d_v, 0.0);
      for (std::int64_t h = 0; h < p.q.sizes[1]; ++h) {
        const std::int64_t g = h / group;
        for (std::int64_t i = 0; i < p.q.sizes[2]; ++i) {
          const std::vector<double> s = scores(p, b, n, h, i);
          const double lse = stats[stats_at(p, n, h, i)];
          double row_dot = 0.0;  // rowsum(dO * O)
          for (std::int64_t d = 0; d < d_v; ++d) {
            row_dot += load(b.grad_o, at(p.grad_o, n, h, i, d)) * load(b.o, at(p.o, n, h, i, d));
          }
          std::vector<double> dq(d_qk, 0.0);
          for (std::int64_t j = 0; j < s_kv; ++j) {
            if (s[j] == kNegInf || lse == kNegInf) continue;
            const double prob = std::exp(s[j] - lse), factor = keep.factor(n, h, i, j);
            double dp = 0.0;
            for (std::int64_t d = 0; d < d_v; ++d) {
              const double grad_out = load(b.grad_o, at(p.grad_o, n, h, i, d));
              dp += grad_out * load(b.v, at(p.v, n, g, j, d));
              dv[(g * s_kv + j) * d_v + d] += rounded(prob * factor) * grad_out;
            }
            const double ds = prob * (dp * factor - row_dot);
            for (std::int64_t d = 0; d < d_qk; ++d) {
              dq[d] += p.scale * ds * load(b.k, at(p.k, n, g, j, d));
              dk[(g * s_kv + j) * d_qk + d] += p.scale * ds * load(b.q, at(p.q, n, h, i, d));
            }
          }
          for (std::int64_t d = 0; d < d_qk; ++d) {
            simulated::store_element<T>(b.grad_q, at(p.grad_q, n, h, i, d), dq[d]);
          }
        }
      }
      for (std::int64_t g = 0; g < kv_heads; ++g) {
        for (std::int64_t j = 0; j < s_kv; ++j) {
          for (std::int64_t d = 0; d < d_qk; ++d) {
            simulated::store_element<T>(b.grad_k, at(p.grad_k, n, g, j, d), dk[(g * s_kv + j) * d_qk + d]);
          }
          for (std::int64_t d = 0; d < d_v; ++d) {
            simulated::store_element<T>(b.grad_v, at(p.grad_v, n, g, j, d), dv[(g * s_kv + j) * d_v + d]);
          }
        }
      }
    }
  }

  AttentionPlan plan_;
};

}  // namespace

std::unique_ptr<AttentionExecutable> make_attention_executable(const AttentionPlan& plan) {
  if (plan.data_type == DataType::kHalf) return std::make_unique<HostAttention<c10::Half>>(plan);
  if (plan.data_type == DataType::kBFloat16) return std::make_unique<HostAttention<c10::BFloat16>>(plan);
  throw std::invalid_argument("cuDNN's attention takes half and bfloat16");
}

}  // namespace torch_cuda::cudnn
