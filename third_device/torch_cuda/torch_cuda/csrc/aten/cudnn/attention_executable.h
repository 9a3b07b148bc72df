// The executable cuDNN attention plans, torch-free and shared by both variants.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/attention_plan.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/lru_cache.h"
#include "torch_core/csrc/runtime/runtime_handles.h"

namespace torch_cuda::cudnn {

// The call's device memory. Forward reads q, k, v (and the bias) and writes o (and the
// statistics); backward reads those, o, the statistics and grad_o, and writes the three
// gradients.
struct AttentionBuffers {
  const void* q = nullptr;
  const void* k = nullptr;
  const void* v = nullptr;
  const void* bias = nullptr;
  void* o = nullptr;        // forward: written; backward: read
  void* stats = nullptr;    // float, (B, Hq, Sq, 1); forward: written; backward: read
  const void* grad_o = nullptr;
  void* grad_q = nullptr;
  void* grad_k = nullptr;
  void* grad_v = nullptr;
  // With dropout: where the Philox seed and offset lie (one int64 each, device memory,
  // read when the pass runs, so a captured graph's replays draw fresh masks).
  const void* dropout_seed = nullptr;
  const void* dropout_offset = nullptr;
  void* workspace = nullptr;  // workspace_size() bytes
};

class AttentionExecutable {
 public:
  virtual ~AttentionExecutable() = default;
  virtual std::int64_t workspace_size() const = 0;
  // Queues the pass on `stream`.
  virtual void run(const AttentionBuffers& buffers, torch_core::StreamHandle stream) const = 0;
};

// Defined by the variant linked into _CUDAC: makes `plan` on the current device (the real
// variant builds its frontend graph).
std::unique_ptr<AttentionExecutable> make_attention_executable(const AttentionPlan& plan);

// The cache's key: every field of the plan, the scale and dropout by their bits.
struct AttentionKey {
  AttentionPlan plan;

  bool operator==(const AttentionKey& other) const;
  bool operator!=(const AttentionKey& other) const { return !(*this == other); }
};

struct AttentionKeyHash {
  std::size_t operator()(const AttentionKey& key) const;
};

// The executables of a device by their plan's key, kept without bound as stock's graph
// cache of cuDNN attention (MHA.cpp) keeps them.
using AttentionCache = LruCache<AttentionKey, AttentionExecutable, AttentionKeyHash>;
AttentionCache& attention_cache(int device);

AttentionKey attention_cache_key(const AttentionPlan& plan);

}  // namespace torch_cuda::cudnn
