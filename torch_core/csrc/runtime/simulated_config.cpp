#include "torch_core/csrc/runtime/simulated_config.h"

#include <cerrno>
#include <cstdlib>
#include <string>

#include "torch_core/csrc/runtime/device_runtime.h"

namespace torch_core {
namespace {

constexpr unsigned long long kMaxDeviceCount = 64;
// 1 TiB per device: lazily committed host memory, so the cap only guards against typos.
constexpr unsigned long long kMaxMemoryMb = 1ull << 20;

[[noreturn]] void throw_malformed(const char* name, const std::string& value,
                                  const std::string& expected) {
  throw RuntimeError(std::string(name) + "='" + value + "' is not valid: expected " + expected);
}

// Reads a decimal number in [min, max] from `name`; false when the variable is unset or
// empty. strtoull alone would accept " 12", "+12", "-1" (wrapped) and "12abc", so the
// digits are checked first.
bool read_number(const char* name, unsigned long long min, unsigned long long max,
                 const std::string& expected, unsigned long long* out) {
  const char* raw = std::getenv(name);
  if (raw == nullptr || *raw == '\0') return false;
  const std::string value(raw);
  for (const char c : value) {
    if (c < '0' || c > '9') throw_malformed(name, value, expected);
  }
  errno = 0;
  const unsigned long long parsed = std::strtoull(raw, nullptr, 10);
  if (errno == ERANGE || parsed < min || parsed > max) throw_malformed(name, value, expected);
  *out = parsed;
  return true;
}

}  // namespace

SimulatedConfig SimulatedConfig::from_env() {
  SimulatedConfig config;
  unsigned long long value = 0;
  if (read_number("TORCH_SIM_DEVICE_COUNT", 0, kMaxDeviceCount,
                  "a whole number of devices from 0 to " + std::to_string(kMaxDeviceCount) +
                      ", e.g. TORCH_SIM_DEVICE_COUNT=2",
                  &value)) {
    config.device_count = static_cast<int>(value);
  }
  if (read_number("TORCH_SIM_MEMORY_MB", 1, kMaxMemoryMb,
                  "a whole number of MiB per device from 1 to " + std::to_string(kMaxMemoryMb) +
                      ", e.g. TORCH_SIM_MEMORY_MB=1024",
                  &value)) {
    config.memory_bytes_per_device = static_cast<std::size_t>(value) << 20;
  }
  return config;
}

}  // namespace torch_core
