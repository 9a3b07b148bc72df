#include "torch_core/aten/cpu_fallback.h"

#include <array>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <unordered_set>

#include <ATen/native/CPUFallback.h>
#include <c10/util/Exception.h>

namespace torch_core {

namespace {

struct FallbackState {
  std::atomic<FallbackPolicy> policy{FallbackPolicy::kAllow};
  std::mutex mutex;  // guards the members below
  std::string env_var;
  std::map<std::string, int64_t> counts;
  std::unordered_set<std::string> warned;
};

constexpr auto kDeviceTypes = static_cast<std::size_t>(c10::DeviceType::COMPILE_TIME_MAX_DEVICE_TYPES);

FallbackState& state(c10::DeviceType device_type) {
  // Leaked: fallbacks may run during static destruction of other libraries.
  static auto* states = new std::array<FallbackState, kDeviceTypes>();
  return (*states)[static_cast<std::size_t>(device_type)];
}

}  // namespace

FallbackPolicy parse_fallback_policy(const std::string& text) {
  if (text == "allow") return FallbackPolicy::kAllow;
  if (text == "warn") return FallbackPolicy::kWarn;
  if (text == "error") return FallbackPolicy::kError;
  TORCH_CHECK_VALUE(false, "unknown CPU fallback policy '", text, "': expected 'allow', 'warn' or 'error'");
}

const char* fallback_policy_name(FallbackPolicy policy) {
  switch (policy) {
    case FallbackPolicy::kWarn:
      return "warn";
    case FallbackPolicy::kError:
      return "error";
    case FallbackPolicy::kAllow:
      break;
  }
  return "allow";
}

void set_fallback_policy(c10::DeviceType device_type, FallbackPolicy policy) {
  FallbackState& s = state(device_type);
  s.policy.store(policy);
  std::lock_guard<std::mutex> lock(s.mutex);
  s.warned.clear();  // a new "warn" warns again
}

FallbackPolicy fallback_policy(c10::DeviceType device_type) { return state(device_type).policy.load(); }

void init_fallback_policy_from_env(c10::DeviceType device_type, const std::string& env_var) {
  FallbackState& s = state(device_type);
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.env_var = env_var;
  }
  const char* value = std::getenv(env_var.c_str());
  if (value == nullptr || *value == '\0') return;
  try {
    set_fallback_policy(device_type, parse_fallback_policy(value));
  } catch (const c10::ValueError& e) {
    TORCH_CHECK_VALUE(false, env_var, ": ", e.msg());
  }
}

std::map<std::string, int64_t> fallback_counts(c10::DeviceType device_type) {
  FallbackState& s = state(device_type);
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.counts;
}

void reset_fallback_counts(c10::DeviceType device_type) {
  FallbackState& s = state(device_type);
  std::lock_guard<std::mutex> lock(s.mutex);
  s.counts.clear();
}

template <c10::DeviceType kDeviceType>
void cpu_fallback(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  FallbackState& s = state(kDeviceType);
  const std::string name = c10::toString(op.operator_name());
  const FallbackPolicy policy = s.policy.load();
  bool warn = false;
  std::string env_var;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    ++s.counts[name];
    if (policy == FallbackPolicy::kWarn) warn = s.warned.insert(name).second;
    env_var = s.env_var;
  }
  const std::string device = c10::DeviceTypeName(kDeviceType, /*lower_case=*/true);
  TORCH_CHECK_NOT_IMPLEMENTED(policy != FallbackPolicy::kError, "The operator '", name,
                              "' has no native kernel for the ", device,
                              " device, and its CPU fallback policy is 'error'",
                              env_var.empty() ? std::string() : " (set " + env_var + "=allow or warn)");
  if (warn) {
    TORCH_WARN("The operator '", name, "' has no native kernel for the ", device,
               " device; it runs on the CPU, with copies to and from the device.");
  }
  at::native::cpu_fallback(op, stack);
}

template void cpu_fallback<c10::DeviceType::CUDA>(const c10::OperatorHandle&, torch::jit::Stack*);
template void cpu_fallback<c10::DeviceType::PrivateUse1>(const c10::OperatorHandle&, torch::jit::Stack*);

}  // namespace torch_core
