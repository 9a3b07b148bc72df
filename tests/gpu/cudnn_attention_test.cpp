// The cuDNN attention plans and executor (third_device/torch_cuda/torch_cuda/csrc/aten/
// cudnn), torch-free.
//
// Everywhere: plan_attention's checks. With a GPU: the frontend's SDPA graph, forward (with
// statistics) and backward, in half, causal and with an additive bias, and grouped-query
// attention (4 query heads over 2 key heads), against attention computed on the host by
// definition (softmax of the scaled scores plus the bias, top-left causal mask; the
// statistics the rows' log-sum-exp; the gradients of O = softmax(S) V), and with dropout
// under the mask the graph drew. Without one: says why, and checks that building an
// executable fails with a clear error.
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/gpu/cudnn_engines.h"
#include "tests/gpu/test_util.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/attention_executable.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/attention_plan.h"

namespace {

using gpu_test::check;
using gpu_test::contains;
namespace cudnn = torch_cuda::cudnn;
using cudnn::AttentionPass;
using cudnn::DataType;
using cudnn::Dims4;

cudnn::AttentionTensor dense(const Dims4& sizes) {
  return {sizes, {sizes[1] * sizes[2] * sizes[3], sizes[2] * sizes[3], sizes[3], 1}};
}

// Batch 1, `heads` query heads over `kv_heads`, sequences 8 (query) and `s_kv`, head dim 16.
cudnn::AttentionCall call_of(AttentionPass pass, std::int64_t heads, std::int64_t kv_heads, std::int64_t s_kv,
                             bool causal, bool bias) {
  cudnn::AttentionCall call;
  call.pass = pass;
  call.data_type = DataType::kHalf;
  call.q = dense({1, heads, 8, 16});
  call.k = dense({1, kv_heads, s_kv, 16});
  call.v = dense({1, kv_heads, s_kv, 16});
  call.o = dense({1, heads, 8, 16});
  call.grad_o = call.o;
  call.grad_q = call.q;
  call.grad_k = call.k;
  call.grad_v = call.v;
  call.has_bias = bias;
  call.bias = {{1, 1, 8, s_kv}, {0, 0, s_kv, 1}};
  call.causal = causal;
  call.scale = 0.25;
  call.stats = true;
  return call;
}

std::string refusal(const cudnn::AttentionCall& call, const std::string& what) {
  return gpu_test::thrown<std::invalid_argument>([&] { cudnn::plan_attention(call); }, what);
}

void plan_checks() {
  const cudnn::AttentionPlan plan = cudnn::plan_attention(call_of(AttentionPass::kBackward, 4, 2, 8, true, true));
  check(plan.k.sizes[1] == 2 && plan.causal && plan.has_bias, "the call, checked, is the plan");
  cudnn::AttentionCall call = call_of(AttentionPass::kForward, 2, 2, 8, false, false);
  call.data_type = DataType::kFloat;
  check(contains(refusal(call, "float"), "half and bfloat16"), "float refused");
  check(contains(refusal(call_of(AttentionPass::kForward, 3, 2, 8, false, false), "heads"), "not a multiple"),
        "3 query heads over 2 key heads refused");
  call = call_of(AttentionPass::kForward, 2, 2, 8, false, false);
  call.v.sizes[2] = 7;
  check(contains(refusal(call, "value"), "the value is"), "a value of another length refused");
  call = call_of(AttentionPass::kForward, 2, 2, 8, false, false);
  call.q.strides[3] = 2;
  check(contains(refusal(call, "stride"), "head dim is not contiguous"), "a strided head dim refused");
  call = call_of(AttentionPass::kForward, 2, 2, 8, false, true);
  call.bias.sizes[1] = 3;
  check(contains(refusal(call, "bias"), "does not broadcast"), "a bias of 3 heads over 2 refused");
  call = call_of(AttentionPass::kBackward, 2, 2, 8, false, false);
  call.grad_k.sizes[2] = 4;
  check(contains(refusal(call, "grad"), "the key's gradient"), "a key gradient of another size refused");
  call = call_of(AttentionPass::kForward, 2, 2, 8, false, false);
  call.q.sizes[2] = 0;
  call.o.sizes[2] = 0;
  check(contains(refusal(call, "empty"), "size 0"), "an empty query refused");
  const cudnn::AttentionPlan base = cudnn::plan_attention(call_of(AttentionPass::kForward, 2, 2, 8, false, false));
  cudnn::AttentionPlan varied = base;
  check(cudnn::attention_cache_key(varied) == cudnn::attention_cache_key(base), "one plan, one key");
  varied.scale = std::nextafter(base.scale, 1.0);
  check(cudnn::attention_cache_key(varied) != cudnn::attention_cache_key(base), "the scale is keyed exactly");
  varied = base;
  varied.dropout = 0.1;
  check(cudnn::attention_cache_key(varied) != cudnn::attention_cache_key(base), "dropout is keyed");
  varied = base;
  varied.k.strides[1] += 1;
  check(cudnn::attention_cache_key(varied) != cudnn::attention_cache_key(base), "a stride is keyed");
  varied = base;
  varied.scale = -0.0;
  cudnn::AttentionPlan zero = base;
  zero.scale = 0.0;
  check(cudnn::attention_cache_key(varied) != cudnn::attention_cache_key(zero), "-0 and +0 scales are two keys");
  check(cudnn::AttentionKeyHash{}(cudnn::attention_cache_key(base)) ==
            cudnn::AttentionKeyHash{}(cudnn::attention_cache_key(cudnn::AttentionPlan(base))),
        "equal keys hash alike");
  check(cudnn::attention_cache(0).capacity() == cudnn::AttentionCache::kUnbounded, "graphs kept without bound");
  call = call_of(AttentionPass::kForward, 2, 2, 8, false, false);
  call.dropout = 1.5;
  check(contains(refusal(call, "dropout"), "not in [0, 1]"), "a dropout probability of 1.5 refused");
}

// ---- device -------------------------------------------------------------------------------

struct Reference {
  std::vector<double> o, stats, dq, dk, dv;
};

// Attention by definition; with `keep`, each probability (h, i, j) is multiplied by keep[(h *
// 8 + i) * s_kv + j] (dropout: 0 or 1 / (1 - p)) before the product with V.
Reference reference(const cudnn::AttentionCall& c, const std::vector<double>& q, const std::vector<double>& k,
                    const std::vector<double>& v, const std::vector<double>& bias, const std::vector<double>& dout,
                    const std::vector<double>* keep = nullptr) {
  const std::int64_t heads = c.q.sizes[1], kv_heads = c.k.sizes[1], s_q = 8, s_kv = c.k.sizes[2], d = 16;
  Reference r{std::vector<double>(q.size()), std::vector<double>(heads * s_q), std::vector<double>(q.size()),
              std::vector<double>(k.size()), std::vector<double>(v.size())};
  for (std::int64_t h = 0; h < heads; ++h) {
    const std::int64_t g = h / (heads / kv_heads);
    for (std::int64_t i = 0; i < s_q; ++i) {
      std::vector<double> p(s_kv, 0.0);
      double high = -std::numeric_limits<double>::infinity(), sum = 0;
      for (std::int64_t j = 0; j < s_kv; ++j) {
        if (c.causal && j > i) continue;
        double dot = 0;
        for (std::int64_t e = 0; e < d; ++e) dot += q[(h * s_q + i) * d + e] * k[(g * s_kv + j) * d + e];
        p[j] = c.scale * dot + (c.has_bias ? bias[i * s_kv + j] : 0.0);
        high = std::max(high, p[j]);
      }
      for (std::int64_t j = 0; j < s_kv; ++j) sum += (c.causal && j > i) ? 0.0 : std::exp(p[j] - high);
      r.stats[h * s_q + i] = high + std::log(sum);
      for (std::int64_t j = 0; j < s_kv; ++j) p[j] = (c.causal && j > i) ? 0.0 : std::exp(p[j] - r.stats[h * s_q + i]);
      std::vector<double> factor(s_kv, 1.0), z(s_kv);  // z: the probabilities after dropout
      for (std::int64_t j = 0; j < s_kv; ++j) {
        if (keep) factor[j] = (*keep)[(h * s_q + i) * s_kv + j];
        z[j] = p[j] * factor[j];
      }
      double row = 0;  // rowsum(dO * O)
      for (std::int64_t e = 0; e < d; ++e) {
        for (std::int64_t j = 0; j < s_kv; ++j) r.o[(h * s_q + i) * d + e] += z[j] * v[(g * s_kv + j) * d + e];
        row += dout[(h * s_q + i) * d + e] * r.o[(h * s_q + i) * d + e];
      }
      for (std::int64_t j = 0; j < s_kv; ++j) {
        double dp = 0;
        for (std::int64_t e = 0; e < d; ++e) {
          dp += dout[(h * s_q + i) * d + e] * v[(g * s_kv + j) * d + e];
          r.dv[(g * s_kv + j) * d + e] += z[j] * dout[(h * s_q + i) * d + e];
        }
        const double ds = p[j] * (dp * factor[j] - row);
        for (std::int64_t e = 0; e < d; ++e) {
          r.dq[(h * s_q + i) * d + e] += c.scale * ds * k[(g * s_kv + j) * d + e];
          r.dk[(g * s_kv + j) * d + e] += c.scale * ds * q[(h * s_q + i) * d + e];
        }
      }
    }
  }
  return r;
}

std::vector<double> values(std::size_t n, int seed) {
  std::vector<double> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<double>((i * 7 + seed * 3) % 13) / 8.0 - 0.75;
  return out;
}

struct Inputs {
  std::vector<double> q, k, v, bias, dout;
};

Inputs inputs_of(const cudnn::AttentionCall& call) {
  const std::size_t n_q = call.q.sizes[1] * 8 * 16, n_kv = call.k.sizes[1] * call.k.sizes[2] * 16;
  return {values(n_q, 1), values(n_kv, 2), values(n_kv, 3), values(8 * call.k.sizes[2], 5), values(n_q, 4)};
}

template <typename T>
std::vector<double> doubles(const std::vector<T>& values) {
  std::vector<double> out;
  for (const T& value : values) out.push_back(gpu_test::to_double(value));
  return out;
}

// `call`'s forward pass, then its backward, on the device (dropout from seed 1234, offset 8).
Reference run_on_device(cudnn::AttentionCall call, const Inputs& in, cudaStream_t stream) {
  const std::size_t n_q = in.q.size(), n_kv = in.k.size();
  gpu_test::DeviceBuffer<__half> d_q(gpu_test::converted<__half>(in.q)), d_k(gpu_test::converted<__half>(in.k)),
      d_v(gpu_test::converted<__half>(in.v)), d_bias(gpu_test::converted<__half>(in.bias)),
      d_dout(gpu_test::converted<__half>(in.dout)), d_o{std::vector<__half>(n_q)}, d_dq{std::vector<__half>(n_q)},
      d_dk{std::vector<__half>(n_kv)}, d_dv{std::vector<__half>(n_kv)};
  gpu_test::DeviceBuffer<float> d_stats{std::vector<float>(n_q / 16)};
  gpu_test::DeviceBuffer<std::int64_t> seed{std::vector<std::int64_t>{1234}}, offset{std::vector<std::int64_t>{8}};
  cudnn::AttentionBuffers b;
  b.q = d_q.get();
  b.k = d_k.get();
  b.v = d_v.get();
  b.bias = call.has_bias ? d_bias.get() : nullptr;
  b.o = d_o.get();
  b.stats = d_stats.get();
  b.grad_o = d_dout.get();
  b.grad_q = d_dq.get();
  b.grad_k = d_dk.get();
  b.grad_v = d_dv.get();
  b.dropout_seed = seed.get();
  b.dropout_offset = offset.get();
  for (const AttentionPass pass : {AttentionPass::kForward, AttentionPass::kBackward}) {
    call.pass = pass;
    const auto executable = cudnn::make_attention_executable(cudnn::plan_attention(call));
    gpu_test::DeviceBuffer<char> workspace{std::vector<char>(static_cast<std::size_t>(executable->workspace_size()))};
    b.workspace = workspace.get();
    executable->run(b, stream);
    gpu_test::cuda_ok(cudaStreamSynchronize(stream), "sync");
  }
  return {doubles(d_o.to_host()), doubles(d_stats.to_host()), doubles(d_dq.to_host()), doubles(d_dk.to_host()),
          doubles(d_dv.to_host())};
}

void compare(const Reference& got, const Reference& want, const std::string& name) {
  check(gpu_test::worst_error(got.o, want.o) <= 1e-2, name + ": output");
  check(gpu_test::worst_error(got.stats, want.stats) <= 1e-3, name + ": statistics");
  check(gpu_test::worst_error(got.dq, want.dq) <= 2e-2, name + ": query gradient");
  check(gpu_test::worst_error(got.dk, want.dk) <= 2e-2, name + ": key gradient");
  check(gpu_test::worst_error(got.dv, want.dv) <= 2e-2, name + ": value gradient");
}

void run_case(std::int64_t heads, std::int64_t kv_heads, std::int64_t s_kv, bool causal, bool with_bias,
              cudaStream_t stream, const std::string& name) {
  const cudnn::AttentionCall call = call_of(AttentionPass::kForward, heads, kv_heads, s_kv, causal, with_bias);
  const Inputs in = inputs_of(call);
  compare(run_on_device(call, in, stream), reference(call, in.q, in.k, in.v, in.bias, in.dout), name);
}

// Dropout 0.5: with the identity as the value (a key length of the head dim, 16), the output
// is P * keep / (1 - p), which shows the mask cuDNN drew from the seed and offset; the same
// call with another value, forward and backward, must then be attention under that mask.
void dropout_case(cudaStream_t stream) {
  cudnn::AttentionCall call = call_of(AttentionPass::kForward, 2, 2, 16, false, false);
  call.dropout = 0.5;
  const Inputs in = inputs_of(call);
  Inputs eye = in;
  for (std::size_t i = 0; i < eye.v.size(); ++i) eye.v[i] = (i / 16) % 16 == i % 16 ? 1.0 : 0.0;
  const std::vector<double> probs = reference(call, in.q, in.k, eye.v, in.bias, in.dout).o;
  const std::vector<double> dropped = run_on_device(call, eye, stream).o;
  std::vector<double> keep(probs.size());
  std::size_t kept = 0;
  for (std::size_t i = 0; i < probs.size(); ++i) {
    keep[i] = dropped[i] > 0.5 * probs[i] ? 2.0 : 0.0;
    kept += keep[i] > 0 ? 1 : 0;
    check(std::fabs(dropped[i] - keep[i] * probs[i]) <= 1e-2, "dropout: each probability dropped or doubled");
  }
  check(kept > probs.size() * 3 / 10 && kept < probs.size() * 7 / 10, "dropout: about half the probabilities kept");
  compare(run_on_device(call, in, stream), reference(call, in.q, in.k, in.v, in.bias, in.dout, &keep), "dropout");
}

void device_checks(cudaStream_t stream) {
  gpu_test::load_cudnn_engine_libraries();
  run_case(2, 2, 8, false, false, stream, "plain");
  run_case(2, 2, 16, true, true, stream, "causal over a longer key, with a bias");
  run_case(4, 2, 8, false, false, stream, "grouped-query");
  dropout_case(stream);
}

void no_device_checks() {
  const std::string message = gpu_test::thrown<std::runtime_error>(
      [&] {
        cudnn::make_attention_executable(
            cudnn::plan_attention(call_of(AttentionPass::kForward, 2, 2, 8, false, false)));
      },
      "an attention executable without a GPU");
  check(contains(message, "CUDA") || contains(message, "cuDNN"), "the no-device error names CUDA or cuDNN: " + message);
}

}  // namespace

int main() {
  return gpu_test::run("cuDNN attention", "cuDNN not run; attention plans and no-device behaviour checked",
                       plan_checks, no_device_checks, device_checks);
}
