#include "third_device/torch_cuda/torch_cuda/csrc/aten/fft/fft_plan_cache.h"

#include <deque>
#include <stdexcept>
#include <string>

namespace torch_cuda::fft {

std::shared_ptr<const Executable> PlanCache::lookup(const FftKey& key, const FftPlan& plan, const Factory& make) {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (max_size_ == 0) return std::shared_ptr<const Executable>(make(plan));
  const auto found = index_.find(key);
  if (found != index_.end()) {
    usage_.splice(usage_.begin(), usage_, found->second);
    return found->second->second;
  }
  std::shared_ptr<const Executable> made(make(plan));
  usage_.emplace_front(key, made);
  index_.emplace(key, usage_.begin());
  evict_beyond(max_size_);
  return made;
}

std::int64_t PlanCache::size() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<std::int64_t>(usage_.size());
}

std::int64_t PlanCache::max_size() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return max_size_;
}

void PlanCache::set_max_size(std::int64_t max_size) {
  if (max_size < 0) {
    throw std::invalid_argument("cuFFT plan cache size must be non-negative, but got " + std::to_string(max_size));
  }
  const std::lock_guard<std::mutex> lock(mutex_);
  max_size_ = max_size;
  evict_beyond(max_size);
}

void PlanCache::clear() {
  const std::lock_guard<std::mutex> lock(mutex_);
  evict_beyond(0);
}

void PlanCache::evict_beyond(std::int64_t max_size) {
  while (static_cast<std::int64_t>(usage_.size()) > max_size) {
    index_.erase(usage_.back().first);
    usage_.pop_back();
  }
}

PlanCache& plan_cache(int device) {
  // A deque keeps every cache where it is as devices are added; leaked, as plans may be
  // looked up during exit.
  static std::mutex* const mutex = new std::mutex;
  static std::deque<PlanCache>* const caches = new std::deque<PlanCache>;
  const std::lock_guard<std::mutex> lock(*mutex);
  while (static_cast<int>(caches->size()) <= device) caches->emplace_back();
  return (*caches)[device];
}

}  // namespace torch_cuda::fft
