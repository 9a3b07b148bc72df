// Allocator throughput: malloc/free pairs per second through torch_core's caching
// allocator against the runtime's raw allocate/free (the "no cache" baseline), on the
// simulated runtime, measured in the same run. Prints a Markdown table of medians.
//
//   tools/bazel run -c opt //benchmarks/runtime:allocator_bench
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <vector>

#include "torch_core/csrc/runtime/caching_allocator.h"
#include "torch_core/csrc/runtime/simulated_runtime.h"

namespace {

constexpr int kRuns = 7;
constexpr int kPairsPerRun = 20000;
// Request sizes: small-pool, large-pool and oversize-for-small examples.
constexpr std::size_t kSizes[] = {4 << 10, 512 << 10, 4 << 20, 32 << 20};

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// Pairs per second of `pair` (one allocate + one free), median over kRuns.
double pairs_per_second(const std::function<void()>& pair) {
  std::vector<double> rates;
  for (int run = 0; run < kRuns; ++run) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kPairsPerRun; ++i) pair();
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    rates.push_back(kPairsPerRun / elapsed.count());
  }
  return median(rates);
}

}  // namespace

int main() {
  torch_core::SimulatedConfig config;
  config.device_count = 1;
  config.memory_bytes_per_device = std::size_t{1} << 30;
  torch_core::SimulatedRuntime runtime(config);
  torch_core::CachingAllocator allocator(runtime, {}, "sim");
  const torch_core::StreamHandle stream = runtime.default_stream(0);

  std::printf("| request | raw runtime (pairs/s) | caching allocator (pairs/s) | speed-up |\n");
  std::printf("|---:|---:|---:|---:|\n");
  for (const std::size_t bytes : kSizes) {
    const double raw = pairs_per_second([&] {
      void* ptr = runtime.allocate(0, bytes);
      runtime.free(0, ptr);
    });
    const double cached = pairs_per_second([&] {
      void* ptr = allocator.allocate(0, bytes, stream);
      allocator.free(ptr);
    });
    std::printf("| %zu KiB | %.0f | %.0f | %.1fx |\n", bytes >> 10, raw, cached, cached / raw);
  }
  std::printf("\nmedian of %d runs of %d allocate+free pairs, simulated runtime (host memory)\n",
              kRuns, kPairsPerRun);
  return 0;
}
