#include "torch_core/csrc/runtime/caching_allocator.h"

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "torch_core/csrc/runtime/caching_allocator_device.h"

namespace torch_core {

using caching_allocator_detail::DeviceCache;
using caching_allocator_detail::out_of_memory_summary;

CachingAllocator::CachingAllocator(DeviceRuntime& runtime, AllocatorConfig config,
                                   std::string device_type)
    : runtime_(runtime), config_(std::move(config)), settings_(config_), device_type_(std::move(device_type)) {
  const int count = runtime_.device_count();
  devices_.reserve(static_cast<std::size_t>(count));
  for (int device = 0; device < count; ++device)
    devices_.push_back(std::make_unique<DeviceCache>(runtime_, device, config_, device_type_));
}

CachingAllocator::~CachingAllocator() {
  // The device caches free their segments; blocks taken while caching was off are here.
  for (Shard& owner : shards_) {
    for (const auto& [ptr, allocation] : owner.allocations) {
      if (allocation.block == nullptr) runtime_.free(allocation.device, ptr);
    }
  }
}

void CachingAllocator::update_settings(const std::string& text, const std::string& source) {
  std::lock_guard<std::mutex> lock(settings_mutex_);
  AllocatorConfig updated = AllocatorConfig::parse_onto(settings_, text, source);
  settings_ = std::move(updated);
  for (const auto& device : devices_) device->apply_config(settings_);
}

DeviceCache& CachingAllocator::device_cache(int device) const {
  if (device < 0 || device >= device_count()) {
    throw std::out_of_range("CachingAllocator: device " + std::to_string(device) +
                            " is not in [0, " + std::to_string(device_count()) + ")");
  }
  return *devices_[static_cast<std::size_t>(device)];
}

CachingAllocator::Shard& CachingAllocator::shard(void* ptr) const {
  const auto address = reinterpret_cast<std::uintptr_t>(ptr);
  return shards_[(address >> 9) % kShards];
}

void CachingAllocator::begin_allocate_to_pool(int device, PoolId id, PoolFilter filter) {
  device_cache(device).begin_allocate_to_pool(id, std::move(filter));
}

void CachingAllocator::end_allocate_to_pool(int device, PoolId id) {
  device_cache(device).end_allocate_to_pool(id);
}

void CachingAllocator::release_pool(int device, PoolId id) { device_cache(device).release_pool(id); }

void CachingAllocator::create_pool(int device, PoolId id, std::shared_ptr<const SegmentSource> source,
                                   PoolOptions options) {
  device_cache(device).create_pool(id, std::move(source), options);
}

int CachingAllocator::pool_use_count(int device, PoolId id) { return device_cache(device).pool_use_count(id); }

std::vector<void*> CachingAllocator::pool_live_allocations(int device, PoolId id) {
  return device_cache(device).pool_live_allocations(id);
}

void CachingAllocator::empty_pool_cache(int device, PoolId id) { device_cache(device).empty_pool_cache(id); }

void* CachingAllocator::allocate(int device, std::size_t bytes, StreamHandle stream) {
  DeviceCache& cache = device_cache(device);
  if (bytes == 0) return nullptr;
  if (!caching_enabled()) return allocate_uncached(device, bytes);
  Traceback context = gather_stack(
      [](const HistorySettings& settings) { return settings.alloc_stacks; });
  Block* block = cache.malloc(bytes, stream, std::move(context));
  void* ptr = block->ptr;
  Shard& owner = shard(ptr);
  std::lock_guard<std::mutex> lock(owner.mutex);
  owner.allocations.emplace(ptr, Allocation{device, block});
  return ptr;
}

void CachingAllocator::free(void* ptr) {
  if (ptr == nullptr) return;
  Traceback context = gather_stack(
      [](const HistorySettings& settings) { return settings.free_stacks; });
  Allocation allocation{};
  {
    Shard& owner = shard(ptr);
    std::lock_guard<std::mutex> lock(owner.mutex);
    const auto it = owner.allocations.find(ptr);
    if (it == owner.allocations.end()) {
      std::ostringstream message;
      message << "CachingAllocator::free: " << ptr
              << " was not allocated by this allocator, or was freed already";
      throw RuntimeError(message.str());
    }
    allocation = it->second;
    owner.allocations.erase(it);
  }
  if (allocation.block == nullptr) {
    runtime_.synchronize_device(allocation.device);
    runtime_.free(allocation.device, ptr);
    return;
  }
  device_cache(allocation.device).free(allocation.block, std::move(context));
}

void* CachingAllocator::allocate_uncached(int device, std::size_t bytes) {
  void* ptr = runtime_.allocate(device, bytes);
  if (ptr == nullptr) {
    throw OutOfMemoryError(out_of_memory_summary(device_type_, device, bytes, runtime_.memory_info(device)) +
                           " The caching allocator is off, so nothing cached can be given back.");
  }
  Shard& owner = shard(ptr);
  std::lock_guard<std::mutex> lock(owner.mutex);
  owner.allocations.emplace(ptr, Allocation{device, nullptr});
  return ptr;
}

void CachingAllocator::record_stream(void* ptr, int stream_device, StreamHandle stream) {
  if (ptr == nullptr) return;
  Shard& owner = shard(ptr);
  // Held across the device call so a concurrent free cannot delete the block meanwhile
  // (lock order: shard, then device; nothing takes them the other way round).
  std::lock_guard<std::mutex> lock(owner.mutex);
  const auto it = owner.allocations.find(ptr);
  if (it == owner.allocations.end()) {
    std::ostringstream message;
    message << "CachingAllocator::record_stream: " << ptr
            << " is not a live allocation of this allocator";
    throw RuntimeError(message.str());
  }
  // An uncached block is given back only after a device synchronisation: nothing to track.
  if (it->second.block == nullptr) return;
  device_cache(it->second.device).record_stream(it->second.block, stream_device, stream);
}

void* CachingAllocator::segment_base(void* ptr) const {
  Shard& owner = shard(ptr);
  std::lock_guard<std::mutex> lock(owner.mutex);  // shard, then device, as record_stream
  const auto it = owner.allocations.find(ptr);
  if (it == owner.allocations.end()) {
    std::ostringstream message;
    message << "CachingAllocator::segment_base: " << ptr << " is not a live allocation of this allocator";
    throw RuntimeError(message.str());
  }
  if (it->second.block == nullptr) return ptr;  // uncached: the runtime's allocation itself
  return device_cache(it->second.device).segment_base(it->second.block);
}

void CachingAllocator::empty_cache() {
  for (auto& device : devices_) device->empty_cache();
}

DeviceStats CachingAllocator::stats(int device) const { return device_cache(device).stats(); }

void CachingAllocator::reset_peak_stats(int device) { device_cache(device).reset_peak_stats(); }

void CachingAllocator::reset_accumulated_stats(int device) {
  device_cache(device).reset_accumulated_stats();
}

std::vector<SegmentInfo> CachingAllocator::snapshot() const {
  std::vector<SegmentInfo> segments;
  for (const auto& device : devices_) {
    const std::size_t first = segments.size();
    device->append_snapshot(segments);
    std::sort(segments.begin() + static_cast<std::ptrdiff_t>(first), segments.end(),
              [](const SegmentInfo& a, const SegmentInfo& b) { return a.address < b.address; });
  }
  return segments;
}

MemoryInfo CachingAllocator::memory_info(int device) const {
  device_cache(device);  // validates the index with this allocator's message
  return runtime_.memory_info(device);
}

void CachingAllocator::set_memory_fraction(int device, double fraction) {
  device_cache(device).set_memory_fraction(fraction);
}

// --- Memory history ------------------------------------------------------------------

void CachingAllocator::record_history(HistorySettings settings, bool clear_trace) {
  std::shared_ptr<const HistorySettings> shared;
  if (settings.enabled()) shared = std::make_shared<const HistorySettings>(std::move(settings));
  std::lock_guard<std::mutex> lock(history_mutex_);
  history_ = shared;
  recording_.store(shared != nullptr, std::memory_order_release);
  for (auto& device : devices_) device->set_history(shared, clear_trace);
}

std::vector<TraceEntry> CachingAllocator::trace(int device) const {
  return device_cache(device).trace();
}

Traceback CachingAllocator::allocation_traceback(void* ptr) const {
  Shard& owner = shard(ptr);
  std::lock_guard<std::mutex> lock(owner.mutex);
  const auto it = owner.allocations.find(ptr);
  if (it == owner.allocations.end() || it->second.block == nullptr) return nullptr;
  return it->second.block->context;
}

Traceback CachingAllocator::gather_stack(bool wanted_by(const HistorySettings&)) const {
  if (!recording_.load(std::memory_order_acquire)) return nullptr;
  std::shared_ptr<const HistorySettings> settings;
  {
    std::lock_guard<std::mutex> lock(history_mutex_);
    settings = history_;
  }
  if (settings == nullptr || !wanted_by(*settings) || !settings->gather) return nullptr;
  return settings->gather();
}

}  // namespace torch_core
