// What the caching allocator's tests share: a simulated device's settings, the allocator
// configuration parser, sizes, and lookups in a snapshot.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tests/torch_core/stream_gate.h"
#include "torch_core/csrc/runtime/allocator_config.h"
#include "torch_core/csrc/runtime/allocator_errors.h"
#include "torch_core/csrc/runtime/allocator_snapshot.h"
#include "torch_core/csrc/runtime/allocator_stats.h"
#include "torch_core/csrc/runtime/caching_allocator.h"
#include "torch_core/csrc/runtime/simulated_config.h"
#include "torch_core/csrc/runtime/simulated_runtime.h"

namespace allocator_test {

using torch_core::AllocatorConfig;
using torch_core::BlockState;
using torch_core::CachingAllocator;
using torch_core::DeviceStats;
using torch_core::OutOfMemoryError;
using torch_core::RuntimeError;
using torch_core::SegmentInfo;
using torch_core::SimulatedConfig;
using torch_core::SimulatedRuntime;
using torch_core::StreamHandle;
using torch_core::testing::Gate;
using torch_core::kAggregatePool;
using torch_core::kLargePool;
using torch_core::kSmallPool;

constexpr int64_t kKiB = 1 << 10;
constexpr int64_t kMiB = 1 << 20;
constexpr std::size_t kDeviceBytes = 64 * kMiB;

inline SimulatedConfig device_config(int devices = 1, std::size_t bytes = kDeviceBytes) {
  SimulatedConfig config;
  config.device_count = devices;
  config.memory_bytes_per_device = bytes;
  return config;
}

inline AllocatorConfig config_of(const std::string& text) {
  return AllocatorConfig::parse(text, "TEST_ALLOC_CONF");
}

inline std::size_t mib(double count) { return static_cast<std::size_t>(count * kMiB); }

inline const SegmentInfo* segment_at(const std::vector<SegmentInfo>& segments, const void* ptr) {
  for (const SegmentInfo& segment : segments)
    if (segment.address == reinterpret_cast<std::uintptr_t>(ptr)) return &segment;
  return nullptr;
}

inline char* bytes(void* ptr) { return static_cast<char*>(ptr); }

// CHECK_EQ binds its arguments to references: a field of a temporary DeviceStats reached
// through operator[] would dangle, so such reads are copied first.
template <typename T>
T value_of(const T& value) {
  return value;
}

}  // namespace allocator_test
