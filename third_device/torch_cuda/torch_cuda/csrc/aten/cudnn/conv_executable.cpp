#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/conv_executable.h"

#include <deque>
#include <memory>
#include <mutex>
#include <utility>

namespace torch_cuda::cudnn {

std::shared_ptr<const ConvExecutable> ConvCache::lookup(const ConvKey& key, const ConvPlan& plan,
                                                        const Factory& make) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto found = executables_.find(key);
    if (found != executables_.end()) return found->second;
  }
  // Made outside the lock: choosing an algorithm may time every candidate on the device.
  std::shared_ptr<const ConvExecutable> made = make(plan);
  const std::lock_guard<std::mutex> lock(mutex_);
  return executables_.emplace(key, std::move(made)).first->second;
}

std::int64_t ConvCache::size() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<std::int64_t>(executables_.size());
}

ConvCache& conv_cache(int device) {
  // A deque keeps every cache where it is as devices are added; leaked, as the FFT plan
  // caches: executables hold cuDNN descriptors, which must not be destroyed after the
  // driver's own teardown at exit.
  static std::mutex* const mutex = new std::mutex;
  static std::deque<ConvCache>* const caches = new std::deque<ConvCache>;
  const std::lock_guard<std::mutex> lock(*mutex);
  while (static_cast<int>(caches->size()) <= device) caches->emplace_back();
  return (*caches)[device];
}

}  // namespace torch_cuda::cudnn
