#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/conv_executable.h"

#include <cerrno>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>

namespace torch_cuda::cudnn {

std::int64_t conv_cache_limit(const char* value) {
  constexpr std::int64_t kDefault = 10000;
  if (value == nullptr) return kDefault;
  char* end = nullptr;
  errno = 0;
  const long long parsed = std::strtoll(value, &end, 10);
  const bool whole = end != value && *end == '\0' && errno == 0;
  return whole ? static_cast<std::int64_t>(parsed) : kDefault;
}

ConvCache::ConvCache(std::int64_t limit) : limit_(limit) {}

const ConvCache::Entry* ConvCache::touch(const ConvKey& key) {
  const auto found = index_.find(key);
  if (found == index_.end()) return nullptr;
  recent_.splice(recent_.begin(), recent_, found->second);
  return &*found->second;
}

std::shared_ptr<const ConvExecutable> ConvCache::lookup(const ConvKey& key, const ConvPlan& plan,
                                                        const Factory& make) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (const Entry* cached = touch(key)) return cached->second;
  }
  // Made outside the lock: choosing an engine may time every candidate on the device.
  std::shared_ptr<const ConvExecutable> made = make(plan);
  if (limit_ < 0) return made;
  const std::lock_guard<std::mutex> lock(mutex_);
  if (const Entry* cached = touch(key)) return cached->second;  // another thread made it meanwhile
  recent_.emplace_front(key, made);
  index_.emplace(key, recent_.begin());
  if (limit_ > 0 && static_cast<std::int64_t>(recent_.size()) > limit_) {
    index_.erase(recent_.back().first);
    recent_.pop_back();
  }
  return made;
}

std::int64_t ConvCache::size() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<std::int64_t>(recent_.size());
}

ConvCache& conv_cache(int device) {
  // A deque keeps every cache where it is as devices are added; leaked, as the FFT plan
  // caches: executables hold cuDNN descriptors, which must not be destroyed after the
  // driver's own teardown at exit.
  static std::mutex* const mutex = new std::mutex;
  static std::deque<ConvCache>* const caches = new std::deque<ConvCache>;
  const std::lock_guard<std::mutex> lock(*mutex);
  static const std::int64_t limit = conv_cache_limit(std::getenv("TORCH_CUDNN_V8_API_LRU_CACHE_LIMIT"));
  while (static_cast<int>(caches->size()) <= device) caches->emplace_back(limit);
  return (*caches)[device];
}

}  // namespace torch_cuda::cudnn
