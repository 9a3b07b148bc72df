#include "torch_core/csrc/runtime/simulated_memory.h"

#include <cstdlib>
#include <limits>

namespace torch_core {

SimulatedMemoryPool::~SimulatedMemoryPool() {
  for (const auto& entry : blocks_) std::free(reinterpret_cast<void*>(entry.first));
}

void* SimulatedMemoryPool::allocate(std::size_t bytes) {
  if (bytes == 0 || bytes > std::numeric_limits<std::size_t>::max() - kAlignment) return nullptr;
  const std::size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  {
    // Reserve first, so that concurrent callers can never overshoot the capacity.
    std::lock_guard<std::mutex> lock(mutex_);
    if (rounded > capacity_ - used_) return nullptr;
    used_ += rounded;
  }
  void* ptr = std::aligned_alloc(kAlignment, rounded);
  std::lock_guard<std::mutex> lock(mutex_);
  if (ptr == nullptr) {
    used_ -= rounded;
    return nullptr;
  }
  blocks_.emplace(reinterpret_cast<std::uintptr_t>(ptr), Block{bytes, rounded});
  return ptr;
}

bool SimulatedMemoryPool::release(void* ptr) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = blocks_.find(reinterpret_cast<std::uintptr_t>(ptr));
    if (it == blocks_.end()) return false;
    used_ -= it->second.rounded;
    blocks_.erase(it);
  }
  std::free(ptr);
  return true;
}

bool SimulatedMemoryPool::owns(const void* ptr) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return blocks_.count(reinterpret_cast<std::uintptr_t>(ptr)) != 0;
}

bool SimulatedMemoryPool::contains(const void* ptr, std::size_t bytes) const {
  const auto address = reinterpret_cast<std::uintptr_t>(ptr);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = blocks_.upper_bound(address);  // first block starting after ptr
  if (it == blocks_.begin()) return false;
  --it;
  const std::uintptr_t offset = address - it->first;
  return offset < it->second.requested && bytes <= it->second.requested - offset;
}

std::size_t SimulatedMemoryPool::used() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return used_;
}

}  // namespace torch_core
