// Settings of the caching device allocator, parsed from the allocator-config environment
// variable format PyTorch uses (PYTORCH_ALLOC_CONF / PYTORCH_CUDA_ALLOC_CONF):
//
//   max_split_size_mb:128,garbage_collection_threshold:0.6,roundup_power2_divisions:4
//   roundup_power2_divisions:[256:1,512:2,1024:4,>:8]
//
// Each backend reads its own variable and passes its name in, so error messages name the
// variable the user actually set.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

namespace torch_core {

struct AllocatorConfig {
  // Size classes for roundup_power2_divisions: index 0 is sizes below 2 MiB, index i
  // (1..14) is [2^(20+i), 2^(21+i)) bytes, index 15 is 32 GiB and above.
  static constexpr std::size_t kRoundupIntervals = 16;

  // Cached blocks at least this large are never split, and a request below it never
  // takes one (keeps big blocks whole, the fix for fragmentation). Default: no limit.
  std::size_t max_split_size = std::numeric_limits<std::size_t>::max();
  // A request of at least max_split_size may take an unsplittable cached block at most
  // this much larger than itself.
  std::size_t max_non_split_rounding_size = std::size_t{20} << 20;
  // 0 disables; otherwise (0, 1): reclaim old cached blocks when reserved memory exceeds
  // this fraction of the memory the allocator may use.
  double garbage_collection_threshold = 0.0;
  // 0 or 1: round to 512 bytes only; n (a power of two): round to the next of n equal
  // steps between two powers of two.
  std::array<std::size_t, kRoundupIntervals> roundup_power2_divisions{};
  // The variable the settings came from, for messages ("PYTORCH_ALLOC_CONF" by default).
  std::string env_var = "PYTORCH_ALLOC_CONF";
  // Never cache: every block straight from the runtime and back (stock's
  // PYTORCH_NO_CUDA_MEMORY_CACHING=1, for memory checkers that a cache would blind).
  bool uncached = false;
  // expandable_segments:True: the default pools grow one segment per stream in place
  // (caching_allocator_device_expandable.cpp). On a runtime without virtual memory calls
  // the device layer warns once and allocates as without it, as stock does on a platform
  // without the driver API.
  bool expandable_segments = false;
  // per_process_memory_fraction: the fraction of each device's memory the allocator may
  // use from the start, as torch.cuda.set_per_process_memory_fraction; negative: unset.
  double per_process_memory_fraction = -1.0;

  // Every key parse() accepts.
  static constexpr std::array<const char*, 13> kKeys = {
      "max_split_size_mb", "max_non_split_rounding_mb", "garbage_collection_threshold",
      "roundup_power2_divisions", "expandable_segments", "per_process_memory_fraction", "backend",
      "release_lock_on_cudamalloc", "pinned_use_cuda_host_register", "pinned_use_background_threads",
      "graph_capture_record_stream_reuse", "pinned_num_register_threads", "pinned_reserve_segment_size_mb"};

  // Divisions that apply to a request of `size` bytes.
  std::size_t divisions_for(std::size_t size) const;

  // Parses `text`; throws RuntimeError naming `env_var`, the bad item and the accepted
  // keys and ranges. An empty text gives the defaults.
  static AllocatorConfig parse(const std::string& text, const std::string& env_var);
  // `base` with the keys that `text` gives changed (stock's setAllocatorSettings at run
  // time); errors name `source`.
  static AllocatorConfig parse_onto(AllocatorConfig base, const std::string& text, const std::string& source);
  // parse() of PYTORCH_ALLOC_CONF, the device-generic name, when it is set; else of
  // `backend_env_var` (PYTORCH_CUDA_ALLOC_CONF, the older name stock still reads); else
  // the defaults.
  static AllocatorConfig from_env(const std::string& backend_env_var);
};

}  // namespace torch_core
