#include "third_device/torch_cuda/torch_cuda/csrc/aten/fft/fft_plan_cache.h"

namespace torch_cuda::fft {

PlanCache& plan_cache(int device) {
  static auto* const caches = new DeviceCaches<PlanCache>(kDefaultPlanCacheSize);
  return caches->get(device);
}

}  // namespace torch_cuda::fft
