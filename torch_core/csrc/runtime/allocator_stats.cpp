#include "torch_core/csrc/runtime/allocator_stats.h"

namespace torch_core {
namespace {

void add_stat(std::map<std::string, int64_t>& out, const std::string& name, const Stat& stat) {
  out[name + ".current"] = stat.current;
  out[name + ".peak"] = stat.peak;
  out[name + ".allocated"] = stat.allocated;
  out[name + ".freed"] = stat.freed;
}

void add_array(std::map<std::string, int64_t>& out, const std::string& name,
               const StatArray& stats) {
  static const char* const kPools[] = {"all", "small_pool", "large_pool"};
  for (std::size_t pool = 0; pool < stats.size(); ++pool)
    add_stat(out, name + "." + kPools[pool], stats[pool]);
}

}  // namespace

std::map<std::string, int64_t> memory_stats_dict(const DeviceStats& stats) {
  std::map<std::string, int64_t> out;
  add_array(out, "allocation", stats.allocation);
  add_array(out, "segment", stats.segment);
  add_array(out, "active", stats.active);
  add_array(out, "inactive_split", stats.inactive_split);
  add_array(out, "allocated_bytes", stats.allocated_bytes);
  add_array(out, "reserved_bytes", stats.reserved_bytes);
  add_array(out, "active_bytes", stats.active_bytes);
  add_array(out, "inactive_split_bytes", stats.inactive_split_bytes);
  add_array(out, "requested_bytes", stats.requested_bytes);
  add_stat(out, "oversize_allocations", stats.oversize_allocations);
  add_stat(out, "oversize_segments", stats.oversize_segments);
  out["num_alloc_retries"] = stats.num_alloc_retries;
  out["num_ooms"] = stats.num_ooms;
  out["num_sync_all_streams"] = stats.num_sync_all_streams;
  out["num_device_alloc"] = stats.num_device_alloc;
  out["num_device_free"] = stats.num_device_free;
  out["max_split_size"] = stats.max_split_size;
  return out;
}

}  // namespace torch_core
