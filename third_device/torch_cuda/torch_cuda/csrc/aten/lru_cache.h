// The caches of library executables (cuDNN convolution and attention graphs, cuFFT plans),
// torch-free and shared by both variants: a thread-safe map from a plan's key to its
// executable that evicts the least recently used beyond its capacity, and one such cache per
// device. Executables are made outside the lock, since making one may take long (cuDNN's
// timing of every candidate, a cuFFT plan); when two threads make the same key at once, the
// first to finish is kept and both get it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>

namespace torch_cuda {

// Mixes `value` into `seed`, boost's hash_combine: the caches' keys hash their fields with it.
inline void hash_combine(std::size_t& seed, std::int64_t value) {
  seed ^= std::hash<std::int64_t>{}(value) + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
}

template <typename Key, typename Value, typename Hash>
class LruCache {
 public:
  // A capacity of kUnbounded keeps every executable; 0 keeps none (each lookup makes its own).
  static constexpr std::int64_t kUnbounded = -1;

  explicit LruCache(std::int64_t capacity) : capacity_(capacity) {}

  // The value of `key`: cached, or made by `make()` (returning a pointer to Value) and kept.
  template <typename Make>
  std::shared_ptr<const Value> lookup(const Key& key, const Make& make) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (const auto found = index_.find(key); found != index_.end()) return touched(found->second);
    }
    std::shared_ptr<const Value> made(make());
    const std::lock_guard<std::mutex> lock(mutex_);
    if (capacity_ == 0) return made;
    if (const auto found = index_.find(key); found != index_.end()) return touched(found->second);
    recent_.emplace_front(key, made);
    index_.emplace(key, recent_.begin());
    evict_beyond(capacity_);
    return made;
  }

  std::int64_t size() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return static_cast<std::int64_t>(recent_.size());
  }

  std::int64_t capacity() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return capacity_;
  }

  // Evicts the least recently used beyond the new capacity.
  void set_capacity(std::int64_t capacity) {
    const std::lock_guard<std::mutex> lock(mutex_);
    capacity_ = capacity;
    evict_beyond(capacity);
  }

  void clear() {
    const std::lock_guard<std::mutex> lock(mutex_);
    evict_beyond(0);
  }

 private:
  using Entry = std::pair<Key, std::shared_ptr<const Value>>;
  using Position = typename std::list<Entry>::iterator;

  std::shared_ptr<const Value> touched(Position position) {
    recent_.splice(recent_.begin(), recent_, position);
    return position->second;
  }

  void evict_beyond(std::int64_t capacity) {
    if (capacity == kUnbounded) return;
    while (static_cast<std::int64_t>(recent_.size()) > capacity) {
      index_.erase(recent_.back().first);
      recent_.pop_back();
    }
  }

  mutable std::mutex mutex_;
  std::int64_t capacity_;
  std::list<Entry> recent_;  // the most recently used first
  std::unordered_map<Key, Position, Hash> index_;
};

// One Cache per device index, each made on first use with the capacity given here. Callers
// keep theirs forever (a leaked static): executables hold library descriptors and handles,
// which must not be destroyed after the driver's own teardown at exit.
template <typename Cache>
class DeviceCaches {
 public:
  explicit DeviceCaches(std::int64_t capacity) : capacity_(capacity) {}

  // The cache of `device` (0 <= device; callers check it against the device count).
  Cache& get(int device) {
    const std::lock_guard<std::mutex> lock(mutex_);
    while (static_cast<int>(caches_.size()) <= device) caches_.emplace_back(capacity_);
    return caches_[device];  // a deque keeps every cache where it is as devices are added
  }

 private:
  const std::int64_t capacity_;
  std::mutex mutex_;
  std::deque<Cache> caches_;
};

}  // namespace torch_cuda
