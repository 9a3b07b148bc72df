#include "torch_core/csrc/device/device_allocator.h"

#include <algorithm>
#include <cctype>
#include <exception>
#include <string>
#include <utility>

#include <c10/util/Exception.h>
#include <c10/util/env.h>

#include "torch_core/csrc/device/backend.h"
#include "torch_core/csrc/device/deleter_table.h"
#include "torch_core/csrc/device/gpu_trace.h"
#include "torch_core/csrc/device/ipc_sharing.h"
#include "torch_core/csrc/device/runtime_call.h"
#include "torch_core/csrc/runtime/allocator_config.h"
#include "torch_core/csrc/runtime/allocator_errors.h"
#include "torch_core/csrc/runtime/allocator_sizes.h"
#include "torch_core/csrc/runtime/allocator_stats.h"

namespace torch_core {

namespace {

// The raw deleter's work (deleter_table.h): back to the allocator of the type's backend.
void free_device_memory(c10::DeviceType device_type, void* ptr) {
  Backend* backend = Backend::find(device_type);
  if (backend == nullptr || ptr == nullptr) return;
  try {
    backend->allocator().free(ptr);
  } catch (const std::exception& e) {
    // Deleters run in destructors: report, never throw.
    TORCH_WARN("freeing device memory failed: ", e.what());
  }
}

// PYTORCH_NO_CUDA_MEMORY_CACHING=1 (PYTORCH_NO_<DEVICE>_MEMORY_CACHING for any device
// type): never cache. Read with c10's check_env, as stock reads it (other values warn).
bool uncached_from_env(c10::DeviceType device_type) {
  std::string name = c10::DeviceTypeName(device_type);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  const std::string variable = "PYTORCH_NO_" + name + "_MEMORY_CACHING";
  return c10::utils::check_env(variable.c_str()) == true;
}

void copy_stat(c10::CachingAllocator::Stat& to, const Stat& from) {
  to.current = from.current;
  to.peak = from.peak;
  to.allocated = from.allocated;
  to.freed = from.freed;
}

void copy_stats(c10::CachingAllocator::StatArray& to, const StatArray& from) {
  for (std::size_t i = 0; i < to.size() && i < from.size(); ++i) copy_stat(to[i], from[i]);
}

}  // namespace

DeviceCachingAllocator::DeviceCachingAllocator(c10::DeviceType device_type, DeviceRuntime& runtime,
                                               StreamRegistry& streams, std::string config_env)
    : device_type_(device_type), runtime_(runtime), streams_(streams), config_env_(std::move(config_env)) {}

CachingAllocator& DeviceCachingAllocator::core() {
  TORCH_CHECK(!has_source_.load(std::memory_order_acquire), c10::DeviceTypeName(device_type_),
              "PluggableAllocator does not support this call: the current allocator is a pluggable "
              "allocator (torch.cuda.memory.change_current_allocator), through which only allocation "
              "and free go; memory statistics, snapshots, pools, history and caching need torch's "
              "caching allocator");
  std::call_once(core_once_, [this] {
    AllocatorConfig config = AllocatorConfig::from_env(config_env_);
    config.uncached = uncached_from_env(device_type_);
    if (config.expandable_segments && runtime_.device_count() > 0 &&
        runtime_.vm_granularity(runtime_.current_device()) == 0) {
      TORCH_WARN("expandable_segments not supported on this platform (", config.env_var,
                 "): this device's runtime has no virtual memory management, so the allocator "
                 "allocates as without the setting");
    }
    core_ = std::make_unique<CachingAllocator>(runtime_, std::move(config),
                                               c10::DeviceTypeName(device_type_));
    settings_.attach(*core_);
  });
  return *core_;
}

c10::DeviceIndex DeviceCachingAllocator::resolve(c10::DeviceIndex device) const {
  if (device < 0) return static_cast<c10::DeviceIndex>(runtime_.current_device());
  const int count = runtime_.device_count();
  // Stock's message (CUDACachingAllocator's assertValidDevice), with the valid range.
  TORCH_CHECK(device < count, "Invalid device argument ", static_cast<int>(device),
              ": did you call init? (there are ", count, " devices)");
  return device;
}

c10::DataPtr DeviceCachingAllocator::allocate_on(c10::DeviceIndex device, std::size_t bytes,
                                                 StreamHandle stream) {
  if (has_source_.load(std::memory_order_acquire)) {
    if (std::shared_ptr<const SegmentSource> source = current_source()) {
      return allocate_from_source(std::move(source), device, bytes, stream);
    }
  }
  const c10::Device where(device_type_, device);
  void* ptr = runtime_call(device_type_, [&] {
    try {
      return core().allocate(device, bytes, stream);
    } catch (const OutOfMemoryError&) {
      // Blocks shared with processes that have let them go may be what is missing (stock
      // runs its IPC collection as a free-memory callback before it raises).
      if (!collect_ipc()) throw;
      return core().allocate(device, bytes, stream);
    }
  });
  if (ptr != nullptr) gpu_trace::memory_allocated(device_type_, ptr);
  return c10::DataPtr(ptr, ptr, raw_deleter(), where);
}

c10::DataPtr DeviceCachingAllocator::allocate(std::size_t bytes) {
  const auto device = static_cast<c10::DeviceIndex>(runtime_.current_device());
  return allocate_on(device, bytes, streams_.current_handle(device));
}

c10::DeleterFnPtr DeviceCachingAllocator::raw_deleter() const {
  return deleter_for<&free_device_memory>(device_type_);
}

void DeviceCachingAllocator::copy_data(void* dest, const void* src, std::size_t count) const {
  if (count == 0) return;
  runtime_.memcpy(dest, src, count, CopyKind::kDeviceToDevice);
}

c10::DataPtr DeviceCachingAllocator::allocate_from_source(std::shared_ptr<const SegmentSource> source,
                                                          c10::DeviceIndex device, std::size_t bytes,
                                                          StreamHandle stream) {
  const c10::Device where(device_type_, device);
  void* ptr = bytes == 0 ? nullptr : source->allocate(bytes, device, stream);
  TORCH_CHECK_WITH(OutOfMemoryError, ptr != nullptr || bytes == 0, c10::DeviceTypeName(device_type_),
                   " out of memory. Tried to allocate ", allocator_sizes::format_size(bytes), " on device ",
                   static_cast<int>(device), ": the pluggable allocator's allocation function returned null");
  {
    std::lock_guard<std::mutex> lock(source_mutex_);
    source_used_ = true;
    if (ptr != nullptr) source_allocations_[ptr] = SourceAllocation{std::move(source), bytes, device, stream};
  }
  if (ptr != nullptr) gpu_trace::memory_allocated(device_type_, ptr);
  return c10::DataPtr(ptr, ptr, raw_deleter(), where);
}

bool DeviceCachingAllocator::free_to_source(void* ptr) {
  SourceAllocation allocation;
  {
    std::lock_guard<std::mutex> lock(source_mutex_);
    const auto it = source_allocations_.find(ptr);
    if (it == source_allocations_.end()) return false;
    allocation = std::move(it->second);
    source_allocations_.erase(it);
  }
  allocation.source->free(ptr, allocation.bytes, allocation.device, allocation.stream);
  return true;
}

void DeviceCachingAllocator::set_current_source(std::shared_ptr<const SegmentSource> source) {
  std::lock_guard<std::mutex> lock(source_mutex_);
  // Stock's message: memory from one allocator must not reach another's free.
  TORCH_CHECK(core_ == nullptr && !source_used_, "Can't swap an already initialized allocator");
  has_source_.store(source != nullptr, std::memory_order_release);
  source_ = std::move(source);
}

std::shared_ptr<const SegmentSource> DeviceCachingAllocator::current_source() const {
  std::lock_guard<std::mutex> lock(source_mutex_);
  return source_;
}

bool DeviceCachingAllocator::initialized() {
  std::lock_guard<std::mutex> lock(source_mutex_);
  return core_ != nullptr || source_used_;
}

void DeviceCachingAllocator::emptyCache(c10::MempoolId_t mempool_id) {
  if (has_source_.load(std::memory_order_acquire) || core_ == nullptr) return;  // nothing cached
  if (mempool_id == c10::MempoolId_t{0, 0}) {
    core().empty_cache();
    return;
  }
  for (int device = 0; device < core().device_count(); ++device) core().empty_pool_cache(device, mempool_id);
}

bool DeviceCachingAllocator::owns(const c10::DataPtr& ptr) const {
  return ptr.get_deleter() == raw_deleter();
}

void DeviceCachingAllocator::recordStream(const c10::DataPtr& ptr, c10::Stream stream) {
  // Memory of other allocators (from_blob, a view of host memory) is not ours to track;
  // a pluggable allocator is given no stream uses (as stock's without record_stream_fn).
  if (!owns(ptr) || ptr.get() == nullptr || has_source_.load(std::memory_order_acquire)) return;
  core().record_stream(ptr.get(), stream.device_index(), streams_.handle(stream));
}

void DeviceCachingAllocator::free(void* ptr) {
  gpu_trace::memory_freed(device_type_, ptr);
  if (has_source_.load(std::memory_order_acquire)) {
    TORCH_CHECK(free_to_source(ptr), "free: pointer ", ptr, " was not allocated by the pluggable allocator");
    return;
  }
  core().free(ptr);
}

c10::CachingDeviceAllocator::DeviceStats DeviceCachingAllocator::getDeviceStats(c10::DeviceIndex device) {
  const DeviceStats stats = core().stats(resolve(device));
  c10::CachingDeviceAllocator::DeviceStats result;
  copy_stats(result.allocation, stats.allocation);
  copy_stats(result.segment, stats.segment);
  copy_stats(result.active, stats.active);
  copy_stats(result.inactive_split, stats.inactive_split);
  copy_stats(result.allocated_bytes, stats.allocated_bytes);
  copy_stats(result.reserved_bytes, stats.reserved_bytes);
  copy_stats(result.active_bytes, stats.active_bytes);
  copy_stats(result.inactive_split_bytes, stats.inactive_split_bytes);
  copy_stats(result.requested_bytes, stats.requested_bytes);
  result.num_alloc_retries = stats.num_alloc_retries;
  result.num_ooms = stats.num_ooms;
  copy_stat(result.oversize_allocations, stats.oversize_allocations);
  copy_stat(result.oversize_segments, stats.oversize_segments);
  result.num_sync_all_streams = stats.num_sync_all_streams;
  result.num_device_alloc = stats.num_device_alloc;
  result.num_device_free = stats.num_device_free;
  result.max_split_size = stats.max_split_size;
  return result;
}

std::map<std::string, int64_t> DeviceCachingAllocator::stats_dict(c10::DeviceIndex device) {
  return memory_stats_dict(core().stats(resolve(device)));
}

void DeviceCachingAllocator::resetAccumulatedStats(c10::DeviceIndex device) {
  core().reset_accumulated_stats(resolve(device));
}

void DeviceCachingAllocator::resetPeakStats(c10::DeviceIndex device) {
  core().reset_peak_stats(resolve(device));
}

std::pair<std::size_t, std::size_t> DeviceCachingAllocator::getMemoryInfo(c10::DeviceIndex device) {
  // The runtime's answer: it holds under a pluggable allocator too.
  const MemoryInfo info = runtime_call(device_type_, [&] { return runtime_.memory_info(resolve(device)); });
  return {info.free_bytes, info.total_bytes};
}

std::vector<SegmentInfo> DeviceCachingAllocator::snapshot() { return core().snapshot(); }

void DeviceCachingAllocator::set_memory_fraction(c10::DeviceIndex device, double fraction) {
  try {
    core().set_memory_fraction(resolve(device), fraction);
  } catch (const RuntimeError& e) {
    TORCH_CHECK_VALUE(false, e.what());
  }
}

}  // namespace torch_core
