// cuDNN's attention on the CUDA key, shared by both variants:
// _scaled_dot_product_cudnn_attention and its backward, what F.scaled_dot_product_attention
// runs when _fused_sdp_choice (sdp_choice.cpp) picks cuDNN, with the outputs stock's meta
// function describes: the output laid out as the query is (stock's alloc_with_matching_layout),
// the log-sum-exp statistics (B, Hq, Sq, 1) in float, the sequence lengths as max_q and
// max_k, the dropout's Philox seed and offset (0-d int64 on the device; zero without
// dropout), and no cumulative lengths or debug mask. Backward returns gradients laid out as
// their inputs, with grad_out brought to the output's layout as cuDNN's graph expects, and
// drops what its forward dropped (the same seed and offset).
//
// Dropout draws from the device's default generator as stock's: one 32-bit draw per score
// (B * Hq * Sq * Skv) reserved, the seed and offset written on the stream (in a captured
// graph, from the words each replay writes, as stock's unpack_cudnn kernel), so replays draw
// fresh masks.
//
// The bias (attn_mask after stock's boolean conversion) is made 4-d, its L and S expanded,
// in the query's dtype (a float mask on half or bfloat16 attention, as stock takes it, is
// converted), its rows padded to 16 bytes as cuDNN wants them aligned. Operands
// whose head dim is not contiguous are made so.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <tuple>
#include <utility>

#include <ATen/TensorUtils.h>
#include <ATen/core/Tensor.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <ATen/ops/add.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/empty_strided.h>
#include <ATen/ops/from_blob.h>
#include <ATen/ops/full.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros.h>
#include <ATen/ops/zeros_like.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/SymInt.h>
#include <torch/library.h>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/attention_executable.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/attention_plan.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn_operands.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_backend.h"
#include "torch_core/csrc/device/philox_generator.h"

namespace torch_cuda::native {
namespace {

using at::Tensor;

constexpr const char* kOp = "_scaled_dot_product_cudnn_attention";

cudnn::AttentionTensor geometry4(const Tensor& t) {
  cudnn::AttentionTensor g;
  copy_shape(t, g.sizes, g.strides);
  return g;
}

Tensor head_dim_contiguous(const Tensor& t, const char* name) {
  TORCH_CHECK(t.dim() == 4, kOp, ": ", name, " must be 4-d (batch, heads, sequence, head dim), got ", t.sizes());
  TORCH_CHECK(t.is_cuda(), kOp, ": ", name, " must be a CUDA tensor, got ", t.device());
  return t.stride(3) == 1 || t.size(3) == 1 ? t : t.contiguous();
}

// A tensor of `sizes` with dense strides in `like`'s dimension order (stock's
// alloc_with_matching_layout).
Tensor matching_layout(const Tensor& like, at::IntArrayRef sizes) {
  if (like.sizes().equals(sizes)) return at::empty_like(like);
  std::array<int64_t, 4> order{};
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return like.stride(a) > like.stride(b); });
  std::array<int64_t, 4> strides{};
  int64_t stride = 1;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    strides[*it] = stride;
    stride *= sizes[*it];
  }
  return at::empty_strided(sizes, strides, like.options());
}

// The bias as the plan takes it: 4-d (B or 1, H or 1, Sq, Skv) in the query's dtype, rows
// padded to a multiple of 8 elements.
std::optional<Tensor> bias_of(const std::optional<Tensor>& attn_bias, const Tensor& query, int64_t s_kv) {
  if (!attn_bias.has_value() || !attn_bias->defined()) return std::nullopt;
  Tensor bias = *attn_bias;
  if (bias.scalar_type() == at::kBool) {
    bias = at::where(bias, at::zeros({}, query.options()),
                     at::full({}, -std::numeric_limits<double>::infinity(), query.options()));
  }
  TORCH_CHECK(at::isFloatingType(bias.scalar_type()), kOp, ": attn_bias must be bool or floating, got ",
              bias.scalar_type());
  TORCH_CHECK(bias.dim() >= 2 && bias.dim() <= 4, kOp, ": attn_bias must be 2-d to 4-d, got ", bias.sizes());
  while (bias.dim() < 4) bias = bias.unsqueeze(0);
  const int64_t s_q = query.size(2), padded = (s_kv + 7) / 8 * 8;
  const Tensor expanded = bias.expand({bias.size(0), bias.size(1), s_q, s_kv});
  Tensor aligned = at::empty({bias.size(0), bias.size(1), s_q, padded}, query.options()).narrow(3, 0, s_kv);
  aligned.copy_(expanded);
  return aligned;
}

void run_plan(const cudnn::AttentionCall& call, const Tensor& like, cudnn::AttentionBuffers buffers) {
  const cudnn::AttentionPlan plan = planned([&] { return cudnn::plan_attention(call); });
  const auto executable = cudnn::attention_cache(like.device().index())
                              .lookup(cudnn::attention_cache_key(plan),
                                      [&] { return cudnn::make_attention_executable(plan); });
  const Tensor workspace = at::empty({executable->workspace_size()}, like.options().dtype(at::kByte));
  buffers.workspace = workspace.data_ptr();
  executable->run(buffers, backend().streams().current_handle(like.device().index()));
}

// The dropout's Philox seed and offset for `scores` draws, as 0-d int64 tensors on q's device.
std::pair<Tensor, Tensor> draw_dropout(const Tensor& q, int64_t scores) {
  const at::Generator& generator = at::detail::getCUDAHooks().getDefaultGenerator(q.device().index());
  auto* philox = generator.get<torch_core::PhiloxGenerator>();
  torch_core::PhiloxInputs inputs;
  {
    // Note [Acquire lock when using random generators].
    const std::lock_guard<std::mutex> lock(philox->mutex_);
    inputs = philox->philox_inputs(static_cast<uint64_t>(scores));
  }
  const auto words = q.options().dtype(at::kLong);
  Tensor seed = at::empty({}, words), offset = at::empty({}, words);
  if (inputs.graph_seed == nullptr) {
    seed.fill_(static_cast<int64_t>(inputs.seed));
    offset.fill_(static_cast<int64_t>(inputs.offset));
  } else {
    seed.copy_(at::from_blob(const_cast<uint64_t*>(inputs.graph_seed), {}, words));
    at::add_out(offset, at::from_blob(const_cast<uint64_t*>(inputs.graph_offset), {}, words),
                static_cast<int64_t>(inputs.offset));
  }
  return {seed, offset};
}

void check_philox(const Tensor& word, const Tensor& q, const char* name) {
  TORCH_CHECK(word.defined() && word.scalar_type() == at::kLong && word.numel() == 1 && word.device() == q.device(),
              kOp, "_backward: with dropout, ", name, " must be the forward's one-element int64 tensor on ",
              q.device());
}

cudnn::AttentionCall call_of(cudnn::AttentionPass pass, const Tensor& q, const Tensor& k, const Tensor& v,
                             const Tensor& out, const std::optional<Tensor>& bias, bool is_causal,
                             std::optional<double> scale, double dropout_p) {
  cudnn::AttentionCall call;
  call.pass = pass;
  call.data_type = cudnn_data_type_of(q.scalar_type(), kOp);
  call.q = geometry4(q);
  call.k = geometry4(k);
  call.v = geometry4(v);
  call.o = geometry4(out);
  call.has_bias = bias.has_value();
  if (bias) call.bias = geometry4(*bias);
  call.causal = is_causal;
  call.scale = scale.value_or(1.0 / std::sqrt(static_cast<double>(q.size(3))));
  call.dropout = dropout_p;
  return call;
}

void check_operands(const Tensor& q, const Tensor& k, const Tensor& v) {
  at::checkAllSameGPU(kOp, {{q, "query", 1}, {k, "key", 2}, {v, "value", 3}});
  at::checkAllSameType(kOp, {{q, "query", 1}, {k, "key", 2}, {v, "value", 3}});
}

std::tuple<Tensor, Tensor, Tensor, Tensor, c10::SymInt, c10::SymInt, Tensor, Tensor, Tensor> attention(
    const Tensor& query_t, const Tensor& key_t, const Tensor& value_t, const std::optional<Tensor>& attn_bias,
    bool compute_log_sumexp, double dropout_p, bool is_causal, bool /*return_debug_mask*/,
    std::optional<double> scale) {
  const Tensor q = head_dim_contiguous(query_t, "query"), k = head_dim_contiguous(key_t, "key"),
               v = head_dim_contiguous(value_t, "value");
  check_operands(q, k, v);
  const c10::DeviceGuard guard(q.device());
  const int64_t batch = q.size(0), heads = q.size(1), s_q = q.size(2), s_kv = k.size(2);
  Tensor out = matching_layout(q, {batch, heads, s_q, v.size(3)});
  Tensor logsumexp = at::empty({batch, heads, s_q, 1}, q.options().dtype(at::kFloat));
  const std::optional<Tensor> bias = bias_of(attn_bias, q, s_kv);
  cudnn::AttentionCall call =
      call_of(cudnn::AttentionPass::kForward, q, k, v, out, bias, is_causal, scale, dropout_p);
  call.stats = compute_log_sumexp;
  const bool dropout = dropout_p > 0.0 && out.numel() > 0;
  const auto [seed, offset] = dropout ? draw_dropout(q, batch * heads * s_q * s_kv)
                                      : std::pair{at::zeros({}, q.options().dtype(at::kLong)),
                                                  at::zeros({}, q.options().dtype(at::kLong))};
  cudnn::AttentionBuffers buffers;
  buffers.q = q.const_data_ptr();
  buffers.k = k.const_data_ptr();
  buffers.v = v.const_data_ptr();
  buffers.bias = bias ? bias->const_data_ptr() : nullptr;
  buffers.o = out.data_ptr();
  buffers.stats = logsumexp.data_ptr();
  buffers.dropout_seed = seed.const_data_ptr();
  buffers.dropout_offset = offset.const_data_ptr();
  if (out.numel() > 0) run_plan(call, q, buffers);
  return {out, logsumexp, Tensor(), Tensor(), c10::SymInt(s_q), c10::SymInt(s_kv), seed, offset, Tensor()};
}

std::tuple<Tensor, Tensor, Tensor> attention_backward(
    const Tensor& grad_out_t, const Tensor& query_t, const Tensor& key_t, const Tensor& value_t, const Tensor& out,
    const Tensor& logsumexp, const Tensor& philox_seed, const Tensor& philox_offset, const Tensor& attn_bias,
    const Tensor& /*cum_seq_q*/, const Tensor& /*cum_seq_k*/, c10::SymInt /*max_q*/, c10::SymInt /*max_k*/,
    double dropout_p, bool is_causal, std::optional<double> scale) {
  const Tensor q = head_dim_contiguous(query_t, "query"), k = head_dim_contiguous(key_t, "key"),
               v = head_dim_contiguous(value_t, "value");
  check_operands(q, k, v);
  const c10::DeviceGuard guard(q.device());
  if (dropout_p > 0.0) {
    check_philox(philox_seed, q, "philox_seed");
    check_philox(philox_offset, q, "philox_offset");
  }
  TORCH_CHECK(logsumexp.scalar_type() == at::kFloat && logsumexp.is_contiguous() &&
                  logsumexp.sizes().equals({q.size(0), q.size(1), q.size(2), 1}),
              kOp, "_backward: logsumexp must be the forward's (B, H, Sq, 1) float statistics, got ",
              logsumexp.sizes(), " ", logsumexp.scalar_type());
  TORCH_CHECK(grad_out_t.sizes().equals(out.sizes()), kOp, "_backward: grad_out is ", grad_out_t.sizes(),
              ", the output ", out.sizes());
  Tensor grad_out = grad_out_t;
  if (!grad_out.strides().equals(out.strides())) {
    grad_out = at::empty_strided(out.sizes(), out.strides(), out.options());
    grad_out.copy_(grad_out_t);
  }
  // With no key, no query sees anything: zero gradients, as the math path gives.
  const bool any_key = k.numel() > 0;
  Tensor grad_q = any_key ? at::empty_like(q) : at::zeros_like(q);
  Tensor grad_k = at::empty_like(k), grad_v = at::empty_like(v);
  const std::optional<Tensor> bias = bias_of(attn_bias.defined() ? std::optional<Tensor>(attn_bias) : std::nullopt,
                                             q, k.size(2));
  cudnn::AttentionCall call =
      call_of(cudnn::AttentionPass::kBackward, q, k, v, out, bias, is_causal, scale, dropout_p);
  call.grad_o = geometry4(grad_out);
  call.grad_q = geometry4(grad_q);
  call.grad_k = geometry4(grad_k);
  call.grad_v = geometry4(grad_v);
  cudnn::AttentionBuffers buffers;
  buffers.q = q.const_data_ptr();
  buffers.k = k.const_data_ptr();
  buffers.v = v.const_data_ptr();
  buffers.bias = bias ? bias->const_data_ptr() : nullptr;
  buffers.o = const_cast<void*>(out.const_data_ptr());
  buffers.stats = const_cast<void*>(logsumexp.const_data_ptr());
  buffers.grad_o = grad_out.const_data_ptr();
  buffers.grad_q = grad_q.data_ptr();
  buffers.grad_k = grad_k.data_ptr();
  buffers.grad_v = grad_v.data_ptr();
  if (dropout_p > 0.0) {
    buffers.dropout_seed = philox_seed.const_data_ptr();
    buffers.dropout_offset = philox_offset.const_data_ptr();
  }
  if (q.numel() > 0 && any_key) run_plan(call, q, buffers);
  return {grad_q, grad_k, grad_v};
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, CUDA, m) {
  m.impl("_scaled_dot_product_cudnn_attention", TORCH_FN(attention));
  m.impl("_scaled_dot_product_cudnn_attention_backward", TORCH_FN(attention_backward));
}

}  // namespace torch_cuda::native
