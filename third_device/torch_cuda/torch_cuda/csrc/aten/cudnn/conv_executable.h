// The executable cuDNN convolution plans and their per-device cache, torch-free and shared
// by both variants. As stock's BenchmarkCache of algorithm choices: unbounded, one entry
// per key, so cuDNN's heuristics (or, with benchmark, its timing of every algorithm) run
// once per convolution shape and device.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>

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

// Defined by the variant linked into _CUDAC: makes `plan` on the current device.
std::unique_ptr<ConvExecutable> make_conv_executable(const ConvPlan& plan);

class ConvCache {
 public:
  using Factory = std::function<std::unique_ptr<ConvExecutable>(const ConvPlan&)>;

  // The executable of `key`: cached, or made by `make` and cached.
  std::shared_ptr<const ConvExecutable> lookup(const ConvKey& key, const ConvPlan& plan, const Factory& make);
  std::int64_t size() const;

 private:
  mutable std::mutex mutex_;
  std::unordered_map<ConvKey, std::shared_ptr<const ConvExecutable>, ConvKeyHash> executables_;
};

// The cache of device `device` (0 <= device; the caller checks it against the count).
ConvCache& conv_cache(int device);

}  // namespace torch_cuda::cudnn
