// CudaRuntime's virtual memory calls over the driver API, and the caching allocator's
// expandable segments on them (torch-free): a reservation mapped a granule at a time, a
// copy across two mappings, out of memory as `false`, and a segment that grows in place.
// Without a device: the refusal of a device index that does not exist.
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/gpu/test_util.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_device_runtime.h"
#include "torch_core/csrc/runtime/allocator_config.h"
#include "torch_core/csrc/runtime/caching_allocator.h"

namespace {

using gpu_test::check;
using gpu_test::contains;
using torch_core::CopyKind;

constexpr std::size_t kMiB = std::size_t{1} << 20;

char* at(void* base, std::size_t offset) { return static_cast<char*>(base) + offset; }

void no_device_checks(torch_cuda::CudaRuntime& runtime) {
  const std::string message = gpu_test::thrown<std::out_of_range>([&] { runtime.vm_granularity(0); }, "granularity");
  check(contains(message, "invalid CUDA device index 0"), "no device: " + message);
}

void runtime_checks(torch_cuda::CudaRuntime& runtime) {
  const std::size_t granule = runtime.vm_granularity(0);
  std::printf("device 0: virtual memory granularity %zu bytes\n", granule);
  check(granule > 0 && granule % 4096 == 0, "a granularity for device 0");
  if (granule == 0) return;
  void* base = runtime.vm_reserve(0, 8 * granule);
  check(runtime.vm_map(0, base, granule) && runtime.vm_map(0, at(base, granule), granule), "two granules mapped");

  // One fill and one copy across the boundary of the two mappings.
  torch_core::StreamHandle stream = runtime.create_stream(0, 0);
  runtime.memset_async(at(base, granule / 2), 0x5a, granule, stream);
  runtime.synchronize_stream(stream);
  std::vector<unsigned char> back(granule, 0);
  runtime.memcpy(back.data(), at(base, granule / 2), granule, CopyKind::kDeviceToHost);
  check(back == std::vector<unsigned char>(granule, 0x5a), "bytes written across two mappings read back");
  runtime.destroy_stream(stream);

  runtime.vm_unmap(0, at(base, granule), granule);
  check(runtime.vm_map(0, at(base, granule), granule), "an unmapped granule maps again");
  for (std::size_t offset : {std::size_t{0}, granule}) runtime.vm_unmap(0, at(base, offset), granule);
  runtime.vm_release(0, base, 8 * granule);

  // More than the device has: false, not an exception, as allocate() gives nullptr.
  const std::size_t total = runtime.memory_info(0).total_bytes;
  const std::size_t too_much = (2 * total / granule + 1) * granule;
  void* large = runtime.vm_reserve(0, too_much);
  check(!runtime.vm_map(0, large, too_much), "mapping twice the device's memory is refused as out of memory");
  runtime.vm_release(0, large, too_much);
}

void allocator_checks(torch_cuda::CudaRuntime& runtime) {
  torch_core::CachingAllocator allocator(
      runtime, torch_core::AllocatorConfig::parse("expandable_segments:True", "TEST_ALLOC_CONF"));
  torch_core::StreamHandle stream = runtime.create_stream(0, 0);
  void* first = allocator.allocate(0, 12 * kMiB, stream);
  void* second = allocator.allocate(0, 12 * kMiB, stream);
  check(at(second, 0) == at(first, 12 * kMiB), "the second block continues the first's segment");
  check(allocator.stats(0).reserved_bytes[torch_core::kAggregatePool].current == 40 * static_cast<int64_t>(kMiB),
        "two 20 MiB pages mapped");
  runtime.memset_async(first, 1, 24 * kMiB, stream);
  runtime.synchronize_stream(stream);
  std::vector<unsigned char> back(24 * kMiB, 0);
  runtime.memcpy(back.data(), first, back.size(), CopyKind::kDeviceToHost);
  check(back == std::vector<unsigned char>(back.size(), 1), "the two blocks hold what was written across them");
  allocator.free(first);
  allocator.free(second);
  allocator.empty_cache();
  check(allocator.stats(0).reserved_bytes[torch_core::kAggregatePool].current == 0, "empty_cache unmaps the pages");
  runtime.destroy_stream(stream);
}

}  // namespace

int main() {
  std::string reason;
  const int count = gpu_test::device_count(reason);
  torch_cuda::CudaRuntime runtime;
  try {
    if (count == 0) {
      std::printf("skipped: no CUDA device (%s): virtual memory not run; device index checks only\n", reason.c_str());
      no_device_checks(runtime);
    } else {
      runtime_checks(runtime);
      allocator_checks(runtime);
      std::printf("device 0: virtual memory checks run\n");
    }
  } catch (const std::exception& error) {
    check(false, std::string("unexpected exception: ") + error.what());
  }
  return gpu_test::finish();
}
