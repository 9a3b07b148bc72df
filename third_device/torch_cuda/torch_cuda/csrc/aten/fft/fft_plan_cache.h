// The executable FFT plans and their per-device cache (torch.backends.cuda.cufft_plan_cache),
// torch-free and shared by both variants. As stock's CuFFTParamsLRUCache: least recently
// used plans go first, max_size (the capacity) 4096 by default, and max_size 0 turns caching
// off (each transform then makes and drops its own plan).
#pragma once

#include <cstdint>
#include <memory>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/fft/fft_plan.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/lru_cache.h"
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

using PlanCache = LruCache<FftKey, Executable, FftKeyHash>;

// The cache of device `device` (0 <= device; the caller checks it against the count).
PlanCache& plan_cache(int device);

}  // namespace torch_cuda::fft
