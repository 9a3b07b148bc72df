// Which kernel F.scaled_dot_product_attention runs on the CUDA key: _fused_sdp_choice and
// the CUDA slot of _fused_sdp_choice_stub (which stock's scaled_dot_product_attention asks),
// as stock's cuda/sdp_utils.cpp chooses: the priority order (cuDNN first on compute
// capability 9.0 and 10.x with cuDNN newer than 9.15, as stock's check_prefer_cudnn_attention,
// unless TORCH_CUDNN_SDPA_DEPRIORITIZED is set), each backend's enable flag
// (torch.backends.cuda.enable_*_sdp, torch.nn.attention.sdpa_kernel), and cuDNN's
// constraints with stock's reasons. torch_cuda has no flash or memory-efficient kernels
// (they are PyTorch's own CUDA kernels, not NVIDIA libraries'), so those two are never
// chosen, as in a stock build without them. When nothing is left, stock's "No available
// kernel" with each backend's reasons.
#include <array>
#include <cstdint>
#include <exception>
#include <optional>
#include <vector>

#include <ATen/Context.h>
#include <ATen/SDPBackend.h>
#include <ATen/core/Tensor.h>
#include <ATen/core/grad_mode.h>
#include <ATen/native/transformers/attention.h>
#include <c10/util/env.h>
#include <torch/library.h>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_version.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_backend.h"
#include "torch_core/csrc/aten/engine/stub_slot.h"

namespace torch_cuda::native {
namespace {

using at::SDPBackend;
using at::Tensor;

struct Params {
  const Tensor& query;
  const Tensor& key;
  const Tensor& value;
  const std::optional<Tensor>& attn_mask;
  bool enable_gqa;
};

struct Capability {
  int major;
  int minor;
};

Capability capability() {
  const auto [major, minor] = current_compute_capability();
  return {major, minor};
}

bool sm90_or_sm10x(const Capability& c) { return (c.major == 9 && c.minor == 0) || c.major == 10; }

// The loaded cuDNN's version, 0 where it cannot be loaded (its error then comes from the
// first cuDNN call, not from choosing a kernel): stock's check catches the same.
long cudnn_runtime_version() {
  try {
    return cudnn::runtime_version();
  } catch (const std::exception&) {
    return 0;
  }
}

// A failed constraint: stock's warning when debugging, then no.
template <typename... Args>
bool refuse(bool debug, const Args&... why) {
  if (debug) TORCH_WARN(why...);
  return false;
}

bool dims_fit(const Params& p, bool debug) {
  if (p.query.dim() != 4 || p.key.dim() != 4 || p.value.dim() != 4) {
    return refuse(debug, "All fused kernels requires query, key and value to be 4 dimensional, but got Query dim: ",
                  p.query.dim(), ", Key dim: ", p.key.dim(), ", Value dim: ", p.value.dim(), " instead.");
  }
  for (const Tensor* t : {&p.query, &p.key, &p.value}) {
    if (t->size(2) == 0 || t->size(3) == 0 || t->size(0) == 0 || t->size(1) == 0) {
      return refuse(debug, "All fused kernels do not support zero seq_len_q or seq_len_kv.");
    }
    if (t->stride(-1) != 1 && t->size(-1) != 1) {
      return refuse(debug, "All fused kernels require the last dimension of the input to have stride 1.");
    }
  }
  if (p.attn_mask.has_value() && p.attn_mask->stride(-1) != 1 && p.attn_mask->size(-1) != 1) {
    return refuse(debug, "All fused kernels require the last dimension of the attn_mask to have stride 1.");
  }
  return true;
}

bool heads_fit(const Params& p, bool debug) {
  const int64_t q_heads = p.query.size(1), k_heads = p.key.size(1), v_heads = p.value.size(1);
  const bool batches = p.query.size(0) == p.key.size(0) && p.query.size(0) == p.value.size(0);
  const bool same = q_heads == k_heads && q_heads == v_heads;
  const bool grouped = p.enable_gqa && k_heads == v_heads && q_heads % k_heads == 0;
  if (!batches || !(same || grouped)) {
    return refuse(debug, "For dense inputs, both fused kernels require query, key and value to have the same batch ",
                  "size and number of heads (or, with enable_gqa, query heads a multiple of key heads). ",
                  "Query.sizes(): ", p.query.sizes(), ", Key sizes(): ", p.key.sizes(),
                  ", Value sizes(): ", p.value.sizes());
  }
  return true;
}

bool mask_fits(const Params& p, bool debug) {
  if (!p.attn_mask.has_value()) return true;
  const Tensor& mask = *p.attn_mask;
  if (mask.requires_grad()) return refuse(debug, "cuDNN attention does not support a mask that requires grad.");
  const bool rows = mask.dim() >= 2 && (mask.size(-2) == p.query.size(2) || mask.size(-2) == 1) &&
                    (mask.size(-1) == p.key.size(2) || mask.size(-1) == 1);
  const bool batch = mask.dim() == 4 && (mask.size(0) == 1 || mask.size(0) == p.query.size(0));
  const bool leading = mask.dim() == 2 || (batch && (mask.size(1) == 1 || mask.size(1) == p.query.size(1)));
  if (!rows || !leading) {
    return refuse(debug, "cuDNN attention requires attn_mask to be 2-d (L, S) or 4-d (B or 1, H or 1, L, S). Got ",
                  mask.sizes());
  }
  return true;
}

// check_cudnn_tensor_shapes and check_cudnn_d256_bprop_head_dim.
bool cudnn_shapes_fit(const Params& p, const Capability& c, bool debug) {
  constexpr int64_t kMaxDim = 65535;
  if (p.query.size(0) > kMaxDim || p.query.size(1) > kMaxDim) {
    return refuse(debug, "cuDNN SDPA does not support batch size or num_heads greater than ", kMaxDim,
                  ". Got batch size: ", p.query.size(0), ", num_heads: ", p.query.size(1));
  }
  const int64_t d_qk = p.query.size(3), d_v = p.value.size(3), s_k = p.key.size(2);
  const bool d256 = sm90_or_sm10x(c) && cudnn_runtime_version() > 92200;
  const int64_t limit = d256 ? 256 : 128;
  if (d_qk > limit || d_v > limit) return refuse(debug, "head_dim should be no more than ", limit);
  if (d_qk % 8 != 0 || d_v % 8 != 0) return refuse(debug, "head_dim should be a multiple of 8");
  if (s_k == 1) return refuse(debug, "cudnn SDPA does not support key/value sequence length 1.");
  const bool requires_grad = at::GradMode::is_enabled() &&
                             (p.query.requires_grad() || p.key.requires_grad() || p.value.requires_grad());
  if (d256 && requires_grad && !((d_qk <= 128 && d_v <= 128) || (d_qk == 192 && d_v == 128) ||
                                 (d_qk == 256 && d_v == 256))) {
    return refuse(debug, "cuDNN SDPA on SM 9.0/10.x does not support backward with these head dimensions. Got d_qk: ",
                  d_qk, ", d_v: ", d_v);
  }
  return true;
}

bool can_use_cudnn_attention(const Params& p, bool debug) {
  auto& ctx = at::globalContext();
  if (!ctx.userEnabledCuDNNSDP()) return refuse(debug, "cuDNN attention has been runtime disabled.");
  if (p.query.is_nested() || p.key.is_nested() || p.value.is_nested()) {
    return refuse(debug, "Experimental cuDNN SDPA nested tensor support is not enabled.");
  }
  if (!p.query.is_cuda() || !p.key.is_cuda() || !p.value.is_cuda()) {
    return refuse(debug, "All tensors need to be on cuda device. Got query on device: ", p.query.device());
  }
  if (!dims_fit(p, debug)) return false;
  if (ctx.deterministicAlgorithms() && !ctx.deterministicAlgorithmsWarnOnly()) {
    return refuse(debug, "cuDNN SDPA is not deterministic.");
  }
  const Capability c = capability();
  const auto type = p.query.scalar_type();
  const bool low_precision = type == at::kHalf || (type == at::kBFloat16 && c.major >= 8);
  if (!low_precision || p.key.scalar_type() != type || p.value.scalar_type() != type) {
    return refuse(debug, "Expected query, key and value to all be of dtype: {Half, BFloat16}. Got Query dtype: ",
                  p.query.dtype(), ", Key dtype: ", p.key.dtype(), ", and Value dtype: ", p.value.dtype(), " instead.");
  }
  if (!mask_fits(p, debug)) return false;
  if (c.major < 8 || c.major > 12 || (c.major == 12 && c.minor > 1)) {
    return refuse(debug, "cuDNN MHA only supports gpu architectures in the range [sm80, sm121]. Attempting to run on ",
                  "a sm ", c.major, ".", c.minor, " gpu.");
  }
  return heads_fit(p, debug) && cudnn_shapes_fit(p, c, debug);
}

// Stock's priority_order: cuDNN first, once, where stock prefers it.
std::array<SDPBackend, at::num_sdp_backends> priority_order() {
  static const bool initialised = [] {
    const bool deprioritised = c10::utils::check_env("TORCH_CUDNN_SDPA_DEPRIORITIZED") == true;
    const Capability c = capability();
    if (!deprioritised && cudnn_runtime_version() > 91500 && (c.major == 9 || c.major == 10)) {
      at::globalContext().setSDPPriorityOrder({static_cast<int64_t>(SDPBackend::cudnn_attention),
                                               static_cast<int64_t>(SDPBackend::flash_attention),
                                               static_cast<int64_t>(SDPBackend::efficient_attention),
                                               static_cast<int64_t>(SDPBackend::math)});
    }
    return true;
  }();
  (void)initialised;
  return at::globalContext().sDPPriorityOrder();
}

int64_t fused_sdp_choice(const Tensor& query, const Tensor& key, const Tensor& value,
                         const std::optional<Tensor>& attn_mask, double /*dropout_p*/, bool /*is_causal*/,
                         std::optional<double> /*scale*/, bool enable_gqa) {
  // Stock's cuDNN conditions ask neither dropout nor is_causal; only flash attention's do.
  const Params p{query, key, value, attn_mask, enable_gqa};
  auto& ctx = at::globalContext();
  TORCH_CHECK(ctx.userEnabledMathSDP() || ctx.userEnabledFlashSDP() || ctx.userEnabledMemEfficientSDP() ||
                  ctx.userEnabledCuDNNSDP(),
              "No viable backend for scaled_dot_product_attention was found. ",
              "This is likely due to turning off both the math kernel and the fused kernels.");
  for (const SDPBackend backend : priority_order()) {
    switch (backend) {
      case SDPBackend::cudnn_attention:
        if (can_use_cudnn_attention(p, false)) return static_cast<int64_t>(backend);
        break;
      case SDPBackend::math:
        if (ctx.userEnabledMathSDP()) return static_cast<int64_t>(backend);
        break;
      case SDPBackend::overrideable:
        TORCH_CHECK(!ctx.userEnabledOverrideableSDP(), "Invalid backend");
        break;
      default:  // flash and memory-efficient attention: not in torch_cuda
        break;
    }
  }
  TORCH_WARN("Memory efficient kernel not used because:");
  TORCH_WARN("Torch was not compiled with memory efficient attention.");
  TORCH_WARN("Flash attention kernel not used because:");
  TORCH_WARN("Torch was not compiled with flash attention.");
  TORCH_WARN("cuDNN attention kernel not used because:");
  can_use_cudnn_attention(p, true);
  TORCH_CHECK(false, "No available kernel. Aborting execution.");
}

// What stock's scaled_dot_product_attention asks for a CUDA query.
const bool registered = [] {
  torch_core::engine::set_slot(at::native::_fused_sdp_choice_stub, c10::DeviceType::CUDA, &fused_sdp_choice);
  return true;
}();

}  // namespace

TORCH_LIBRARY_IMPL(aten, CUDA, m) { m.impl("_fused_sdp_choice", TORCH_FN(fused_sdp_choice)); }

}  // namespace torch_cuda::native
