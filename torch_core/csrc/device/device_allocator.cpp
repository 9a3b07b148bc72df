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
#include "torch_core/csrc/device/runtime_call.h"
#include "torch_core/csrc/runtime/allocator_config.h"
#include "torch_core/csrc/runtime/allocator_errors.h"
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
  std::call_once(core_once_, [this] {
    AllocatorConfig config = AllocatorConfig::from_env(config_env_);
    config.uncached = uncached_from_env(device_type_);
    if (config.expandable_segments_requested) {
      TORCH_WARN("expandable_segments not supported on this platform (", config.env_var,
                 "): torch_core's caching allocator does not grow segments in place yet, so it "
                 "allocates as without the setting");
    }
    core_ = std::make_unique<CachingAllocator>(runtime_, std::move(config),
                                               c10::DeviceTypeName(device_type_));
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
  const c10::Device where(device_type_, device);
  void* ptr = runtime_call(device_type_, [&] { return core().allocate(device, bytes, stream); });
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

bool DeviceCachingAllocator::initialized() { return core_ != nullptr; }

void DeviceCachingAllocator::emptyCache(c10::MempoolId_t /*mempool_id*/) {
  if (initialized()) core().empty_cache();
}

bool DeviceCachingAllocator::owns(const c10::DataPtr& ptr) const {
  return ptr.get_deleter() == raw_deleter();
}

void DeviceCachingAllocator::recordStream(const c10::DataPtr& ptr, c10::Stream stream) {
  // Memory of other allocators (from_blob, a view of host memory) is not ours to track.
  if (!owns(ptr) || ptr.get() == nullptr) return;
  core().record_stream(ptr.get(), stream.device_index(), streams_.handle(stream));
}

void DeviceCachingAllocator::free(void* ptr) {
  gpu_trace::memory_freed(device_type_, ptr);
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
  const MemoryInfo info = core().memory_info(resolve(device));
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
