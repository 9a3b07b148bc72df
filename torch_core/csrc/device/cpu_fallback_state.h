// What a backend's CPU fallback keeps (torch_core/csrc/aten/cpu_fallback.h): its policy,
// the variable the policy came from, and per-operator counts. Plain data, owned by the
// Backend, so every per-device registry of torch_core lives in one place.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <unordered_set>

namespace torch_core {

enum class FallbackPolicy { kAllow, kWarn, kError };

struct CpuFallbackState {
  std::atomic<FallbackPolicy> policy{FallbackPolicy::kAllow};
  std::mutex mutex;  // guards the members below
  std::string env_var;
  std::map<std::string, int64_t> counts;
  std::unordered_set<std::string> warned;
};

}  // namespace torch_core
