#include "torch_core/csrc/device/host_allocator.h"

#include <cstring>
#include <exception>

#include <c10/util/Exception.h>

#include "torch_core/csrc/device/backend.h"
#include "torch_core/csrc/device/deleter_table.h"
#include "torch_core/csrc/device/runtime_call.h"
#include "torch_core/csrc/runtime/allocator_errors.h"

namespace torch_core {

namespace {

// The raw deleter's work (deleter_table.h): back to the pinned allocator of the type's
// backend.
void free_pinned(c10::DeviceType device_type, void* ptr) {
  Backend* backend = Backend::find(device_type);
  if (backend == nullptr || ptr == nullptr) return;
  try {
    backend->host_allocator().free(ptr);
  } catch (const std::exception& e) {
    // Deleters run in destructors: report, never throw.
    TORCH_WARN("freeing pinned host memory failed: ", e.what());
  }
}

}  // namespace

PinnedHostAllocator::PinnedHostAllocator(c10::DeviceType device_type, DeviceRuntime& runtime)
    : device_type_(device_type), core_(runtime) {}

c10::DataPtr PinnedHostAllocator::allocate(std::size_t bytes) {
  void* ptr = nullptr;
  if (bytes > 0) {
    try {
      ptr = core_.allocate(bytes);
    } catch (const OutOfMemoryError& e) {
      TORCH_CHECK_WITH(OutOfMemoryError, false, "pinned host memory for ",
                       c10::DeviceTypeName(device_type_, true), ": ", e.what());
    } catch (const RuntimeError& e) {
      TORCH_CHECK(false, e.what());
    }
    std::lock_guard<std::mutex> lock(mutex_);
    blocks_.emplace(reinterpret_cast<std::uintptr_t>(ptr), bytes);
  }
  return c10::DataPtr(ptr, ptr, raw_deleter(), c10::Device(c10::DeviceType::CPU));
}

c10::DeleterFnPtr PinnedHostAllocator::raw_deleter() const { return deleter_for<&free_pinned>(device_type_); }

void PinnedHostAllocator::copy_data(void* dest, const void* src, std::size_t count) const {
  if (count > 0) std::memcpy(dest, src, count);
}

void* PinnedHostAllocator::block_of(const void* ptr) const {
  const auto address = reinterpret_cast<std::uintptr_t>(ptr);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = blocks_.upper_bound(address);
  if (it == blocks_.begin()) return nullptr;
  --it;
  return address < it->first + it->second ? reinterpret_cast<void*>(it->first) : nullptr;
}

bool PinnedHostAllocator::is_pinned(const void* ptr) const { return block_of(ptr) != nullptr; }

void PinnedHostAllocator::free(void* ptr) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    blocks_.erase(reinterpret_cast<std::uintptr_t>(ptr));
  }
  core_.free(ptr);
}

void PinnedHostAllocator::record_stream(const void* ptr, int device, StreamHandle stream) {
  void* block = block_of(ptr);
  if (block == nullptr) return;
  runtime_call(device_type_, [&] { core_.record_stream(block, device, stream); });
}

bool PinnedHostAllocator::record_event(void* ptr, void* /*ctx*/, c10::Stream stream) {
  const StreamHandle handle = Backend::get(device_type_).streams().handle(stream);
  record_stream(ptr, stream.device_index(), handle);
  return true;
}

void PinnedHostAllocator::empty_cache() { core_.empty_cache(); }

at::HostStats PinnedHostAllocator::get_stats() {
  const HostAllocatorStats stats = core_.stats();
  const auto stat = [](const Stat& from) {
    c10::CachingAllocator::Stat to;
    to.current = from.current;
    to.peak = from.peak;
    to.allocated = from.allocated;
    to.freed = from.freed;
    return to;
  };
  const auto duration = [](const DurationStat& from) {
    c10::CachingAllocator::DurationStat to;
    to.total = from.total;
    to.max = from.max;
    to.min = from.min;
    to.count = from.count;
    return to;
  };
  at::HostStats result;
  result.active_requests = stat(stats.allocation);
  result.active_bytes = stat(stats.allocated_bytes);
  result.allocations = stat(stats.segment);
  result.allocated_bytes = stat(stats.reserved_bytes);
  result.host_alloc_time = duration(stats.host_alloc_time);
  result.host_free_time = duration(stats.host_free_time);
  result.num_host_alloc = stats.num_host_alloc;
  result.num_host_free = stats.num_host_free;
  return result;
}

void PinnedHostAllocator::reset_accumulated_stats() { core_.reset_accumulated_stats(); }

void PinnedHostAllocator::reset_peak_stats() { core_.reset_peak_stats(); }

}  // namespace torch_core
