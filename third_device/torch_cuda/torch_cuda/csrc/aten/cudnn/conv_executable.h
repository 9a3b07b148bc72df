// The executable cuDNN convolution plans and their per-device cache, torch-free and shared
// by both variants. As stock's v8 BenchmarkCache of execution plans: one entry per key, so
// cuDNN's heuristics (or, with benchmark, the timing of every candidate) run once per
// convolution shape and device, the least recently used evicted beyond
// TORCH_CUDNN_V8_API_LRU_CACHE_LIMIT entries (10,000 by default; 0: no bound; negative:
// nothing kept).
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/conv_plan.h"
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

// The cache's bound from the environment variable's value (nullptr when unset), as stock's
// getLRUCacheLimit reads it: 10,000 when unset or not an integer.
std::int64_t conv_cache_limit(const char* value);

class ConvCache {
 public:
  using Factory = std::function<std::unique_ptr<ConvExecutable>(const ConvPlan&)>;

  // limit > 0: keeps the `limit` most recently used executables; 0: all; < 0: none.
  explicit ConvCache(std::int64_t limit);

  // The executable of `key`: cached, or made by `make` (and cached).
  std::shared_ptr<const ConvExecutable> lookup(const ConvKey& key, const ConvPlan& plan, const Factory& make);
  std::int64_t size() const;

 private:
  using Entry = std::pair<ConvKey, std::shared_ptr<const ConvExecutable>>;

  // Under mutex_: the entry of `key`, made the most recent; nullptr when there is none.
  const Entry* touch(const ConvKey& key);

  const std::int64_t limit_;
  mutable std::mutex mutex_;
  std::list<Entry> recent_;  // the most recently used first
  std::unordered_map<ConvKey, std::list<Entry>::iterator, ConvKeyHash> index_;
};

// The cache of device `device` (0 <= device; the caller checks it against the count),
// bounded by TORCH_CUDNN_V8_API_LRU_CACHE_LIMIT as read at the first call.
ConvCache& conv_cache(int device);

}  // namespace torch_cuda::cudnn
