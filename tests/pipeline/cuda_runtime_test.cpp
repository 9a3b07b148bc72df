// The cudart runtime and the add kernel, with no torch: runs on any machine with nvcc's
// output and, where there is a GPU, on the GPU.
#include <cstdio>
#include <stdexcept>
#include <string>

#include "third_device/torch_cuda/csrc/framework/cuda_device_runtime.h"
#include "third_device/torch_cuda/csrc/framework/device_smoke.h"

namespace {

int failures = 0;
int checks = 0;

void check(bool ok, const std::string& what) {
  ++checks;
  if (!ok) {
    ++failures;
    std::fprintf(stderr, "FAILED: %s\n", what.c_str());
  }
}

}  // namespace

int main() {
  const torch_cuda::CudaRuntime runtime;
  const int count = runtime.device_count();
  const std::string reason = runtime.unavailable_reason();
  check(count >= 0, "device_count() is never negative");
  check((count == 0) == !reason.empty(), "a reason is given exactly when there is no device");

  bool threw = false;
  try {
    runtime.properties(count);
  } catch (const std::out_of_range& error) {
    threw = std::string(error.what()).find("valid indices") != std::string::npos;
  }
  check(threw, "properties(device_count()) throws out_of_range naming the valid indices");

  if (count == 0) {
    std::printf("no CUDA device (%s): GPU round trip skipped, CPU-side checks only\n",
                reason.c_str());
  } else {
    for (int device = 0; device < count; ++device) {
      const auto props = runtime.properties(device);
      check(props.total_memory_bytes > 0 && props.major >= 7, "device properties are sane");
      const double error = torch_cuda::device_add_round_trip(device, 1 << 22);
      check(error < 1e-4, "add kernel matches the host on device " + std::to_string(device));
      std::printf("device %d (%s, sm_%d%d): add round trip max error %g\n", device,
                  props.name.c_str(), props.major, props.minor, error);
    }
  }
  std::printf("%d passed, %d failed\n", checks - failures, failures);
  return failures == 0 ? 0 : 1;
}
