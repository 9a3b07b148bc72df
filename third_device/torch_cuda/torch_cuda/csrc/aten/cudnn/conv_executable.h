// The executable cuDNN convolution plans and their per-device cache, torch-free and shared
// by both variants. As stock's v8 BenchmarkCache of execution plans: one entry per key, so
// cuDNN's heuristics (or, with benchmark, the timing of every candidate) run once per
// convolution shape and device, the least recently used evicted beyond
// TORCH_CUDNN_V8_API_LRU_CACHE_LIMIT entries (10,000 by default; 0: no bound; negative:
// nothing kept).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/conv_plan.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/lru_cache.h"
#include "torch_core/csrc/runtime/runtime_handles.h"

namespace torch_cuda::cudnn {

// The convolution's tensors in cuDNN's names (see ConvKey): the plan's direction reads two
// and overwrites the third (alpha 1, beta 0).
struct ConvBuffers {
  void* x = nullptr;
  void* w = nullptr;
  void* y = nullptr;
};

// A plan made for the current device: the real variant's descriptors and algorithm, the
// simulated variant's host loop.
class ConvExecutable {
 public:
  virtual ~ConvExecutable() = default;
  // Bytes of device memory run() needs as its work area.
  virtual std::int64_t workspace_size() const = 0;
  // Queues the call on `stream`. Safe to call from several threads.
  virtual void run(const ConvBuffers& buffers, void* workspace, torch_core::StreamHandle stream) const = 0;
};

// What timing the candidates needs (a plan with benchmark, stock's FindEx): the call's own
// buffers, which each candidate overwrites as the call will, the stream to time on, and the
// caller's allocator for their largest work area (device memory that stays valid until
// make_conv_executable returns; torch_cuda's caching allocator, as stock's).
struct ConvTuning {
  ConvBuffers buffers;
  torch_core::StreamHandle stream = nullptr;
  std::function<void*(std::int64_t bytes)> workspace;
};

// Defined by the variant linked into _CUDAC: makes `plan` on the current device; `tuning`
// is read only for a plan with benchmark (std::invalid_argument without a workspace).
std::unique_ptr<ConvExecutable> make_conv_executable(const ConvPlan& plan, const ConvTuning& tuning);

using ConvCache = LruCache<ConvKey, ConvExecutable, ConvKeyHash>;

// The cache's capacity from TORCH_CUDNN_V8_API_LRU_CACHE_LIMIT's value (nullptr when unset),
// as stock's getLRUCacheLimit reads it: 10,000 when unset or not an integer; 0 means no
// bound (ConvCache::kUnbounded), a negative value no caching (capacity 0).
std::int64_t conv_cache_capacity(const char* value);

// The cache of device `device` (0 <= device; the caller checks it against the count),
// bounded by TORCH_CUDNN_V8_API_LRU_CACHE_LIMIT as read at the first call.
ConvCache& conv_cache(int device);

}  // namespace torch_cuda::cudnn
