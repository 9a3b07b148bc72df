// DeviceCache's reports: the out-of-memory error, statistics, snapshots and the memory
// history (the allocation paths are in caching_allocator_device.cpp).
#include "torch_core/csrc/runtime/caching_allocator_device.h"

#include <chrono>
#include <cstdint>
#include <sstream>
#include <string>

#include "torch_core/csrc/runtime/allocator_errors.h"
#include "torch_core/csrc/runtime/allocator_sizes.h"

namespace torch_core {
namespace caching_allocator_detail {

namespace sizes = allocator_sizes;

// --- Out of memory -------------------------------------------------------------------

std::string out_of_memory_summary(const std::string& device_type, int device, std::size_t requested,
                                  const MemoryInfo& info) {
  std::ostringstream message;
  message << device_type << " out of memory. Tried to allocate " << sizes::format_size(requested) << ". "
          << device_type << " device " << device << " has a total capacity of "
          << sizes::format_size(info.total_bytes) << " of which " << sizes::format_size(info.free_bytes)
          << " is free.";
  return message.str();
}

void DeviceCache::raise_out_of_memory(const Request& request) {
  ++stats_.num_ooms;
  const MemoryInfo info = runtime_.memory_info(device_);
  record(TraceAction::kOom, nullptr, request.requested, request.stream, request.context,
         info.free_bytes);
  const auto allocated = static_cast<std::size_t>(stats_.allocated_bytes[kAggregatePool].current);
  const std::string& env = config_.env_var;
  std::ostringstream message;
  message << out_of_memory_summary(device_type_, device_, request.requested, info) << ' ';
  if (fraction_set_) {
    message << "This process may use " << sizes::format_size(allowed_bytes())
            << " of it (memory fraction " << memory_fraction_ << "). ";
  }
  message << "Of the " << sizes::format_size(reserved_)
          << " reserved by this process's caching allocator, "
          << sizes::format_size(allocated) << " is allocated and "
          << sizes::format_size(reserved_ - allocated)
          << " is reserved but unallocated. If reserved but unallocated memory is large, "
             "set max_split_size_mb in "
          << env << " (e.g. " << env << "=max_split_size_mb:128) to avoid fragmentation; "
          << "empty_cache() gives cached memory back to the device.";
  throw OutOfMemoryError(message.str());
}

// --- Statistics and snapshots --------------------------------------------------------

DeviceStats DeviceCache::stats() {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

namespace {

template <typename F>
void for_each_array(DeviceStats& stats, F f) {
  for (StatArray* array :
       {&stats.allocation, &stats.segment, &stats.active, &stats.inactive_split,
        &stats.allocated_bytes, &stats.reserved_bytes, &stats.active_bytes,
        &stats.inactive_split_bytes, &stats.requested_bytes}) {
    for (Stat& stat : *array) f(stat);
  }
  f(stats.oversize_allocations);
  f(stats.oversize_segments);
}

}  // namespace

void DeviceCache::reset_peak_stats() {
  std::lock_guard<std::mutex> lock(mutex_);
  for_each_array(stats_, [](Stat& stat) { stat.reset_peak(); });
}

void DeviceCache::reset_accumulated_stats() {
  std::lock_guard<std::mutex> lock(mutex_);
  for_each_array(stats_, [](Stat& stat) { stat.reset_accumulated(); });
  stats_.num_alloc_retries = 0;
  stats_.num_ooms = 0;
  stats_.num_sync_all_streams = 0;
  stats_.num_device_alloc = 0;
  stats_.num_device_free = 0;
}

void DeviceCache::append_snapshot(std::vector<SegmentInfo>& out) {
  std::lock_guard<std::mutex> lock(mutex_);
  record(TraceAction::kSnapshot, nullptr, 0, nullptr, nullptr);
  std::vector<Block*> blocks(active_blocks_.begin(), active_blocks_.end());
  for (BlockPool* pool : {&large_blocks_, &small_blocks_})
    blocks.insert(blocks.end(), pool->blocks.begin(), pool->blocks.end());
  for (const auto& entry : private_pools_) {
    for (BlockPool* pool : {&entry.second->large, &entry.second->small})
      blocks.insert(blocks.end(), pool->blocks.begin(), pool->blocks.end());
  }
  for (Block* head : blocks) {
    if (head->prev != nullptr && head->prev->mapped) continue;
    SegmentInfo segment;
    segment.device = device_;
    segment.address = reinterpret_cast<std::uintptr_t>(head->ptr);
    segment.stream = head->stream;
    segment.is_large = !head->pool->is_small;
    segment.pool_id = head->pool->id;
    segment.is_expandable = head->expandable != nullptr;
    for (const Block* block = head; block != nullptr && block->mapped; block = block->next) {
      BlockInfo info;
      info.address = reinterpret_cast<std::uintptr_t>(block->ptr);
      info.size = block->size;
      if (block->allocated) {
        info.state = BlockState::kActiveAllocated;
        info.requested_size = block->requested_size;
        info.frames = block->context;
      } else if (block->event_count > 0) {
        info.state = BlockState::kActivePendingFree;
      }
      segment.total_size += block->size;
      if (block->allocated) segment.allocated_size += block->size;
      if (info.state != BlockState::kInactive) segment.active_size += block->size;
      segment.requested_size += info.requested_size;
      segment.blocks.push_back(info);
    }
    out.push_back(std::move(segment));
  }
}

// --- Memory history ------------------------------------------------------------------

void DeviceCache::set_history(std::shared_ptr<const HistorySettings> settings, bool clear_trace) {
  std::lock_guard<std::mutex> lock(mutex_);
  history_ = settings != nullptr && settings->enabled() ? std::move(settings) : nullptr;
  if (clear_trace) trace_.clear();
  while (history_ != nullptr && trace_.size() > history_->max_entries) trace_.pop_front();
}

std::vector<TraceEntry> DeviceCache::trace() {
  std::lock_guard<std::mutex> lock(mutex_);
  return {trace_.begin(), trace_.end()};
}

void DeviceCache::record(TraceAction action, const void* address, std::size_t size,
                         StreamHandle stream, Traceback frames, std::size_t device_free) {
  if (history_ == nullptr || !history_->trace || history_->max_entries == 0 ||
      history_->skip.count(action) > 0) {
    return;
  }
  TraceEntry entry;
  entry.action = action;
  entry.address = reinterpret_cast<std::uintptr_t>(address);
  entry.size = size;
  entry.stream = stream;
  entry.time_us = std::chrono::duration_cast<std::chrono::microseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count();
  entry.device_free = device_free;
  if (history_->trace_stacks) entry.frames = std::move(frames);
  entry.user_metadata = thread_memory_metadata();
  if (trace_.size() == history_->max_entries) trace_.pop_front();
  trace_.push_back(std::move(entry));
}

}  // namespace caching_allocator_detail
}  // namespace torch_core
