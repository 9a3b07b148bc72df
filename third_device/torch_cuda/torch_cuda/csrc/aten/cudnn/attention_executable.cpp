#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/attention_executable.h"

#include <array>
#include <cstring>

namespace torch_cuda::cudnn {
namespace {

// The plan's tensors, bias and gradients included (zero where the pass has none).
constexpr std::array<AttentionTensor AttentionPlan::*, 9> kTensors = {
    &AttentionPlan::q,      &AttentionPlan::k,      &AttentionPlan::v,      &AttentionPlan::o,   &AttentionPlan::grad_o,
    &AttentionPlan::grad_q, &AttentionPlan::grad_k, &AttentionPlan::grad_v, &AttentionPlan::bias};

std::int64_t bits_of(double value) {
  std::int64_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

// The plan's other fields, the scale and dropout by their bits: what equality and the hash
// both read.
std::array<std::int64_t, 7> scalar_fields(const AttentionPlan& p) {
  return {static_cast<std::int64_t>(p.pass), static_cast<std::int64_t>(p.data_type), p.has_bias, p.causal, p.stats,
          bits_of(p.scale), bits_of(p.dropout)};
}

}  // namespace

AttentionCache& attention_cache(int device) {
  static auto* const caches = new DeviceCaches<AttentionCache>(AttentionCache::kUnbounded);
  return caches->get(device);
}

bool AttentionKey::operator==(const AttentionKey& other) const {
  const AttentionPlan& a = plan;
  const AttentionPlan& b = other.plan;
  if (scalar_fields(a) != scalar_fields(b)) return false;
  for (const auto tensor : kTensors) {
    if ((a.*tensor).sizes != (b.*tensor).sizes || (a.*tensor).strides != (b.*tensor).strides) return false;
  }
  return true;
}

std::size_t AttentionKeyHash::operator()(const AttentionKey& key) const {
  const AttentionPlan& p = key.plan;
  std::size_t seed = 0;
  for (const std::int64_t field : scalar_fields(p)) hash_combine(seed, field);
  for (const auto tensor : kTensors) {
    for (const std::int64_t size : (p.*tensor).sizes) hash_combine(seed, size);
    for (const std::int64_t stride : (p.*tensor).strides) hash_combine(seed, stride);
  }
  return seed;
}

AttentionKey attention_cache_key(const AttentionPlan& plan) { return AttentionKey{plan}; }

}  // namespace torch_cuda::cudnn
