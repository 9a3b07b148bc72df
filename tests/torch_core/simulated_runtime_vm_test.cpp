// The simulated runtime's virtual memory calls: reservations, mappings charged to the
// device's capacity, copies across adjacent mappings, and the rules cudart's driver API
// enforces (granularity, mapping twice, unmapping part of a mapping, releasing what is
// still mapped).
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "tests/cc_check/check.h"
#include "tests/torch_core/runtime_test_support.h"

namespace {

using namespace runtime_test;  // NOLINT: the tests' shared vocabulary

constexpr std::size_t kGranule = 2 * kMiB;

char* at(void* base, std::size_t offset) { return static_cast<char*>(base) + offset; }

void test_map_copy_unmap() {
  SimulatedRuntime runtime(small_config(1, 8 * kMiB));
  CHECK_EQ(runtime.vm_granularity(0), kGranule);
  void* base = runtime.vm_reserve(0, 16 * kMiB);  // more address space than memory
  CHECK_EQ(reinterpret_cast<std::uintptr_t>(base) % kGranule, std::uintptr_t{0});
  CHECK_EQ(runtime.memory_info(0).free_bytes, 8 * kMiB);  // reserving takes no memory

  CHECK_TRUE(runtime.vm_map(0, base, kGranule));
  CHECK_TRUE(runtime.vm_map(0, at(base, kGranule), kGranule));
  CHECK_EQ(runtime.memory_info(0).free_bytes, 4 * kMiB);

  // A copy may span two adjacent mappings; one that reaches unmapped space may not.
  std::vector<char> out(kGranule, 7);
  runtime.memcpy(at(base, kGranule / 2), out.data(), kGranule, CopyKind::kHostToDevice);
  std::vector<char> back(kGranule, 0);
  runtime.memcpy(back.data(), at(base, kGranule / 2), kGranule, CopyKind::kDeviceToHost);
  CHECK_TRUE(back == out);
  CHECK_THROWS(runtime.memcpy(back.data(), at(base, 3 * kGranule / 2), kGranule, CopyKind::kDeviceToHost),
               RuntimeError, "not inside device memory");

  // Past the capacity, vm_map says no rather than throwing, as allocate() does.
  CHECK_TRUE(runtime.vm_map(0, at(base, 2 * kGranule), 2 * kGranule));
  CHECK_TRUE(!runtime.vm_map(0, at(base, 4 * kGranule), kGranule));

  // Unmapped memory is given back; mapping it again gives fresh (zeroed) memory.
  runtime.vm_unmap(0, base, kGranule);
  CHECK_EQ(runtime.memory_info(0).free_bytes, 2 * kMiB);
  CHECK_TRUE(runtime.vm_map(0, base, kGranule));
  runtime.memcpy(back.data(), base, kGranule, CopyKind::kDeviceToHost);
  CHECK_TRUE(back == std::vector<char>(kGranule, 0));

  for (std::size_t offset : {std::size_t{0}, kGranule}) runtime.vm_unmap(0, at(base, offset), kGranule);
  runtime.vm_unmap(0, at(base, 2 * kGranule), 2 * kGranule);
  runtime.vm_release(0, base, 16 * kMiB);
  CHECK_EQ(runtime.memory_info(0).free_bytes, 8 * kMiB);
}

void test_rules() {
  SimulatedRuntime runtime(small_config(2, 8 * kMiB));
  CHECK_THROWS(runtime.vm_reserve(0, kGranule + 1), RuntimeError, "multiple of the granularity");
  CHECK_THROWS(runtime.vm_reserve(2, kGranule), std::out_of_range, "");
  void* base = runtime.vm_reserve(0, 4 * kGranule);
  CHECK_THROWS(runtime.vm_map(0, at(base, 4096), kGranule), RuntimeError, "aligned");
  CHECK_THROWS(runtime.vm_map(0, at(base, 3 * kGranule), 2 * kGranule), RuntimeError, "not inside one reservation");
  CHECK_THROWS(runtime.vm_map(1, base, kGranule), RuntimeError, "not inside one reservation");  // device 0's
  CHECK_TRUE(runtime.vm_map(0, base, 2 * kGranule));
  CHECK_THROWS(runtime.vm_map(0, at(base, kGranule), kGranule), RuntimeError, "mapped already");
  CHECK_THROWS(runtime.vm_unmap(0, base, kGranule), RuntimeError, "not a range that one vm_map() mapped");
  CHECK_THROWS(runtime.vm_release(0, base, 4 * kGranule), RuntimeError, "still has memory mapped");
  CHECK_THROWS(runtime.vm_release(0, base, 2 * kGranule), RuntimeError, "base and size must match");
  // Reserved memory is not memory allocate() handed out: free() refuses it.
  CHECK_THROWS(runtime.free(0, base), RuntimeError, "not the start of memory allocated");
  runtime.vm_unmap(0, base, 2 * kGranule);
  runtime.vm_release(0, base, 4 * kGranule);
  // A runtime destroyed with mappings left gives everything back (no check: no crash).
  void* left = runtime.vm_reserve(1, kGranule);
  CHECK_TRUE(runtime.vm_map(1, left, kGranule));
}

// Queued work that writes the range lands before vm_unmap() takes the memory away.
void test_unmap_waits_for_queued_work() {
  SimulatedRuntime runtime(small_config(1, 8 * kMiB));
  void* base = runtime.vm_reserve(0, kGranule);
  CHECK_TRUE(runtime.vm_map(0, base, kGranule));
  StreamHandle stream = runtime.create_stream(0, 0);
  Gate gate;
  gate.hold(runtime, stream);
  bool written = false;
  runtime.enqueue(stream, [base, &written] {
    static_cast<char*>(base)[kGranule - 1] = 1;
    written = true;
  });
  std::thread opener([&gate] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    gate.open();
  });
  runtime.vm_unmap(0, base, kGranule);
  CHECK_TRUE(written);
  opener.join();
  runtime.destroy_stream(stream);
  runtime.vm_release(0, base, kGranule);
}

}  // namespace

int main() {
  cc_check::run("map_copy_unmap", test_map_copy_unmap);
  cc_check::run("rules", test_rules);
  cc_check::run("unmap_waits_for_queued_work", test_unmap_waits_for_queued_work);
  return cc_check::summary();
}
