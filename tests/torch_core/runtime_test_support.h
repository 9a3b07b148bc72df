// What the simulated runtime's tests share: small device settings, polling for a
// condition, environment edits, reading device memory back.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>

#include "tests/torch_core/stream_gate.h"
#include "torch_core/csrc/runtime/device_runtime.h"
#include "torch_core/csrc/runtime/simulated_config.h"
#include "torch_core/csrc/runtime/simulated_runtime.h"

namespace runtime_test {

using torch_core::CopyKind;
using torch_core::EventHandle;
using torch_core::RuntimeError;
using torch_core::SimulatedConfig;
using torch_core::SimulatedRuntime;
using torch_core::StreamHandle;
using torch_core::testing::Gate;

constexpr std::size_t kMiB = 1 << 20;

inline SimulatedConfig small_config(int devices = 2, std::size_t bytes = 8 * kMiB) {
  SimulatedConfig config;
  config.device_count = devices;
  config.memory_bytes_per_device = bytes;
  return config;
}

// Polls `condition` for up to `timeout`.
template <typename Condition>
inline bool eventually(Condition condition, std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return condition();
}

// True when `condition` stays false for the whole of `period`.
template <typename Condition>
inline bool stays_false(Condition condition, std::chrono::milliseconds period = std::chrono::milliseconds(100)) {
  return !eventually(condition, period);
}

inline void set_env(const char* name, const char* value) {
  if (value == nullptr) {
    unsetenv(name);
  } else {
    setenv(name, value, /*overwrite=*/1);
  }
}

inline std::vector<int> read_ints(SimulatedRuntime& runtime, const void* device_ptr, std::size_t count) {
  std::vector<int> host(count, -1);
  runtime.memcpy(host.data(), device_ptr, count * sizeof(int), CopyKind::kDeviceToHost);
  return host;
}

inline bool all_equal(const std::vector<int>& values, int expected) {
  return std::all_of(values.begin(), values.end(), [&](int v) { return v == expected; });
}

}  // namespace runtime_test
