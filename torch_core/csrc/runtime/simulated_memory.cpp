#include "torch_core/csrc/runtime/simulated_memory.h"

#include <cstdlib>
#include <limits>

namespace torch_core {
namespace {

// Blocks are page-aligned in the heap but charged in kAlignment units, so the heap's
// address range must hold capacity / kAlignment blocks of up to a page of slack each.
std::size_t heap_range(std::size_t capacity) {
  const std::size_t pages_per_unit = SimulatedSharedHeap::page_size() / SimulatedMemoryPool::kAlignment + 1;
  const std::size_t limit = std::numeric_limits<std::size_t>::max() / 4;
  return capacity > limit / pages_per_unit ? limit : capacity * pages_per_unit + (2u << 20);
}

}  // namespace

SimulatedMemoryPool::SimulatedMemoryPool(std::size_t capacity_bytes, bool shared)
    : capacity_(capacity_bytes),
      heap_(shared ? std::make_unique<SimulatedSharedHeap>(heap_range(capacity_bytes)) : nullptr) {}

SimulatedMemoryPool::~SimulatedMemoryPool() {
  if (heap_ != nullptr) return;  // the heap's mapping goes with it; adopted blocks are the runtime's
  for (const auto& entry : blocks_) {
    if (!entry.second.adopted) std::free(reinterpret_cast<void*>(entry.first));
  }
}

void* SimulatedMemoryPool::allocate(std::size_t bytes) {
  if (bytes == 0 || bytes > std::numeric_limits<std::size_t>::max() - kAlignment) return nullptr;
  const std::size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  // Charge first, so that concurrent callers can never overshoot the capacity.
  if (!charge(rounded)) return nullptr;
  void* ptr = heap_ != nullptr ? heap_->allocate(rounded) : std::aligned_alloc(kAlignment, rounded);
  std::lock_guard<std::mutex> lock(mutex_);
  if (ptr == nullptr) {
    used_ -= rounded;
    return nullptr;
  }
  blocks_.emplace(reinterpret_cast<std::uintptr_t>(ptr), Block{bytes, rounded});
  return ptr;
}

bool SimulatedMemoryPool::release(void* ptr) {
  std::size_t rounded = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = blocks_.find(reinterpret_cast<std::uintptr_t>(ptr));
    if (it == blocks_.end() || it->second.adopted) return false;
    rounded = it->second.rounded;
    used_ -= rounded;
    blocks_.erase(it);
  }
  if (heap_ != nullptr) {
    heap_->release(ptr, rounded);
  } else {
    std::free(ptr);
  }
  return true;
}

bool SimulatedMemoryPool::owns(const void* ptr) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = blocks_.find(reinterpret_cast<std::uintptr_t>(ptr));
  return it != blocks_.end() && !it->second.adopted;
}

bool SimulatedMemoryPool::locate_shared(const void* ptr, SharedLocation* out) const {
  if (heap_ == nullptr) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = blocks_.find(reinterpret_cast<std::uintptr_t>(ptr));
  if (it == blocks_.end() || it->second.adopted) return false;
  *out = SharedLocation{heap_->fd(), heap_->offset_of(ptr), it->second.requested};
  return true;
}

void SimulatedMemoryPool::adopt(void* ptr, std::size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  blocks_[reinterpret_cast<std::uintptr_t>(ptr)] = Block{bytes, 0, true};
}

bool SimulatedMemoryPool::forget(void* ptr) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = blocks_.find(reinterpret_cast<std::uintptr_t>(ptr));
  if (it == blocks_.end() || !it->second.adopted) return false;
  blocks_.erase(it);
  return true;
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

bool SimulatedMemoryPool::charge(std::size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (bytes > capacity_ - used_) return false;
  used_ += bytes;
  return true;
}

void SimulatedMemoryPool::uncharge(std::size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  used_ -= bytes;
}

std::size_t SimulatedMemoryPool::used() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return used_;
}

}  // namespace torch_core
