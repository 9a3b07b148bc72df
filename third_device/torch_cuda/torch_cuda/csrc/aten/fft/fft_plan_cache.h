// The executable FFT plans and their per-device cache (torch.backends.cuda.cufft_plan_cache),
// torch-free and shared by both variants. As stock's CuFFTParamsLRUCache: least recently
// used plans go first, max_size 4096 by default, and max_size 0 turns caching off (each
// transform then makes and drops its own plan).
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/fft/fft_plan.h"
#include "torch_core/csrc/runtime/device_runtime.h"

namespace torch_cuda::fft {

// A plan made for the current device: the real variant's cufftHandle, the simulated
// variant's host transform.
class Executable {
 public:
  virtual ~Executable() = default;
  // Bytes of device memory run() needs as its work area.
  virtual std::int64_t workspace_size() const = 0;
  // Queues the transform on `stream` (cuFFT's direction: forward is exponent -1; neither
  // direction normalises). `in` is the plan's input layout (after the clone it may ask
  // for); a C2R transform may overwrite it. Safe to call from several threads.
  virtual void run(const void* in, void* out, void* workspace, bool forward, torch_core::StreamHandle stream) const = 0;
};

// Defined by the variant linked into _CUDAC: makes `plan` on the current device.
std::unique_ptr<Executable> make_executable(const FftPlan& plan);

inline constexpr std::int64_t kDefaultPlanCacheSize = 4096;

class PlanCache {
 public:
  using Factory = std::function<std::unique_ptr<Executable>(const FftPlan&)>;

  // The executable of `key`: cached, or made by `make` (and cached while max_size > 0).
  std::shared_ptr<const Executable> lookup(const FftKey& key, const FftPlan& plan, const Factory& make);

  std::int64_t size() const;
  std::int64_t max_size() const;
  // Throws std::invalid_argument for a negative size; evicts the least recently used
  // plans beyond it.
  void set_max_size(std::int64_t max_size);
  void clear();

 private:
  using Entry = std::pair<FftKey, std::shared_ptr<const Executable>>;
  void evict_beyond(std::int64_t max_size);

  mutable std::mutex mutex_;
  std::list<Entry> usage_;  // most recently used first
  std::unordered_map<FftKey, std::list<Entry>::iterator, FftKeyHash> index_;
  std::int64_t max_size_ = kDefaultPlanCacheSize;
};

// The cache of device `device` (0 <= device; the caller checks it against the count).
PlanCache& plan_cache(int device);

}  // namespace torch_cuda::fft
