#include "torch_core/csrc/runtime/host_pinned_allocator.h"

#include <chrono>
#include <sstream>

#include "torch_core/csrc/runtime/allocator_errors.h"
#include "torch_core/csrc/runtime/allocator_sizes.h"
#include "torch_core/csrc/runtime/current_device_scope.h"

namespace torch_core {
namespace {

std::size_t size_class(std::size_t power_of_two) {
  std::size_t log = 0;
  while ((std::size_t{1} << log) < power_of_two) ++log;
  return log;
}

int64_t microseconds_since(std::chrono::steady_clock::time_point started) {
  const auto elapsed = std::chrono::steady_clock::now() - started;
  return std::chrono::duration_cast<std::chrono::microseconds>(elapsed).count();
}

}  // namespace

HostPinnedAllocator::HostPinnedAllocator(DeviceRuntime& runtime) : runtime_(runtime) {}

HostPinnedAllocator::~HostPinnedAllocator() {
  try {
    std::lock_guard<std::mutex> lock(mutex_);
    synchronize_events();
    for (auto& [ptr, block] : blocks_) {
      runtime_.free_host_pinned(ptr);
      delete block;
    }
    for (auto& [device, events] : spare_events_) {
      (void)device;
      for (EventHandle event : events) runtime_.destroy_event(event);
    }
  } catch (...) {
    // A destructor must not throw; a runtime already shut down has nothing to give back.
  }
}

void* HostPinnedAllocator::allocate(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  if (bytes > allocator_sizes::kMaxRequest) {
    throw OutOfMemoryError("pinned host memory: cannot allocate " +
                           allocator_sizes::format_size(bytes));
  }
  std::size_t size = 1;
  while (size < bytes) size <<= 1;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    process_events();
    if (Block* block = take_cached(size)) return block->ptr;
  }

  // Pinning is slow (it maps pages): done without the lock.
  auto started = std::chrono::steady_clock::now();
  void* ptr = runtime_.allocate_host_pinned(size);
  if (ptr == nullptr) {
    std::size_t released = 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      synchronize_events();
      released = release_cached();
    }
    started = std::chrono::steady_clock::now();
    if (released > 0) ptr = runtime_.allocate_host_pinned(size);
    if (ptr == nullptr) {
      std::ostringstream message;
      message << "pinned host memory: out of memory. Tried to allocate "
              << allocator_sizes::format_size(bytes) << " (a "
              << allocator_sizes::format_size(size)
              << " block) after releasing the pinned-memory cache ("
              << allocator_sizes::format_size(released) << ").";
      throw OutOfMemoryError(message.str());
    }
  }
  const int64_t pin_time = microseconds_since(started);
  std::lock_guard<std::mutex> lock(mutex_);
  Block* block = new Block(size, ptr);
  blocks_.emplace(ptr, block);
  ++stats_.num_host_alloc;
  stats_.host_alloc_time.add(pin_time);
  stats_.segment.increase(1);
  stats_.reserved_bytes.increase(static_cast<int64_t>(size));
  stats_.allocation.increase(1);
  stats_.allocated_bytes.increase(static_cast<int64_t>(size));
  return ptr;
}

HostPinnedAllocator::Block* HostPinnedAllocator::take_cached(std::size_t size) {
  auto& candidates = free_blocks_[size_class(size)];
  if (candidates.empty()) return nullptr;
  Block* block = candidates.back();
  candidates.pop_back();
  block->allocated = true;
  stats_.allocation.increase(1);
  stats_.allocated_bytes.increase(static_cast<int64_t>(block->size));
  return block;
}

void HostPinnedAllocator::free(void* ptr) {
  if (ptr == nullptr) return;
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = blocks_.find(ptr);
  if (it == blocks_.end() || !it->second->allocated) {
    std::ostringstream message;
    message << "HostPinnedAllocator::free: " << ptr
            << " was not allocated by this allocator, or was freed already";
    throw RuntimeError(message.str());
  }
  Block* block = it->second;
  block->allocated = false;
  stats_.allocation.decrease(1);
  stats_.allocated_bytes.decrease(static_cast<int64_t>(block->size));
  for (const auto& [device, stream] : block->streams) {
    auto& spare = spare_events_[device];
    EventHandle event = nullptr;
    if (spare.empty()) {
      event = runtime_.create_event(device, /*enable_timing=*/false);
    } else {
      event = spare.back();
      spare.pop_back();
    }
    {
      const CurrentDeviceScope on_stream_device(runtime_, device);
      runtime_.record_event(event, stream);
    }
    ++block->event_count;
    pending_.push_back(PendingEvent{device, event, block});
  }
  block->streams.clear();
  if (block->event_count == 0) cache(block);
}

void HostPinnedAllocator::record_stream(void* ptr, int device, StreamHandle stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = blocks_.find(ptr);
  if (it == blocks_.end() || !it->second->allocated) {
    std::ostringstream message;
    message << "HostPinnedAllocator::record_stream: " << ptr
            << " is not a live allocation of this allocator";
    throw RuntimeError(message.str());
  }
  it->second->streams.emplace(device, stream);
}

void HostPinnedAllocator::cache(Block* block) {
  free_blocks_[size_class(block->size)].push_back(block);
}

void HostPinnedAllocator::process_events() {
  std::size_t kept = 0;
  for (const PendingEvent& pending : pending_) {
    if (!runtime_.query_event(pending.event)) {
      pending_[kept++] = pending;
      continue;
    }
    spare_events_[pending.device].push_back(pending.event);
    if (--pending.block->event_count == 0) cache(pending.block);
  }
  pending_.resize(kept);
}

void HostPinnedAllocator::synchronize_events() {
  for (const PendingEvent& pending : pending_) {
    runtime_.synchronize_event(pending.event);
    spare_events_[pending.device].push_back(pending.event);
    if (--pending.block->event_count == 0) cache(pending.block);
  }
  pending_.clear();
}

std::size_t HostPinnedAllocator::release_cached() {
  std::size_t released = 0;
  for (auto& blocks : free_blocks_) {
    for (Block* block : blocks) {
      const auto started = std::chrono::steady_clock::now();
      runtime_.free_host_pinned(block->ptr);
      stats_.host_free_time.add(microseconds_since(started));
      ++stats_.num_host_free;
      stats_.segment.decrease(1);
      stats_.reserved_bytes.decrease(static_cast<int64_t>(block->size));
      released += block->size;
      blocks_.erase(block->ptr);
      delete block;
    }
    blocks.clear();
  }
  return released;
}

void HostPinnedAllocator::empty_cache() {
  std::lock_guard<std::mutex> lock(mutex_);
  synchronize_events();
  release_cached();
}

HostAllocatorStats HostPinnedAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void HostPinnedAllocator::reset_peak_stats() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (Stat* stat : {&stats_.allocation, &stats_.segment, &stats_.allocated_bytes,
                     &stats_.reserved_bytes})
    stat->reset_peak();
}

void HostPinnedAllocator::reset_accumulated_stats() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (Stat* stat : {&stats_.allocation, &stats_.segment, &stats_.allocated_bytes,
                     &stats_.reserved_bytes})
    stat->reset_accumulated();
  stats_.num_host_alloc = 0;
  stats_.num_host_free = 0;
  stats_.host_alloc_time = DurationStat();
  stats_.host_free_time = DurationStat();
}

}  // namespace torch_core
