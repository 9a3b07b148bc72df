// The example's checks: on a GPU, saxpy and fill against the host's arithmetic; without
// one, that both report cudart's no-device error (and the reason is printed).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdio>

#include "fill.h"
#include "saxpy.h"

inline int run_example_checks() {
  int devices = 0;
  const cudaError_t count_status = cudaGetDeviceCount(&devices);
  float x[300], y[300], filled[300];
  for (int i = 0; i < 300; ++i) {
    x[i] = static_cast<float>(i);
    y[i] = 1.0f;
  }
  const cudaError_t saxpy_status = saxpy_on_device(300, 2.0f, x, y);
  const cudaError_t fill_status = fill_on_device(300, 7.0f, filled);
  if (count_status != cudaSuccess || devices == 0) {
    std::printf("SKIPPED the device checks: no CUDA device (%s: %s)\n", cudaGetErrorName(count_status),
                cudaGetErrorString(count_status));
    // Where there is no GPU, the example must say so, not compute garbage.
    const bool no_device = saxpy_status != cudaSuccess && fill_status != cudaSuccess;
    std::printf("%s: the kernels report an error without a device (%s, %s)\n", no_device ? "ok" : "FAILED",
                cudaGetErrorName(saxpy_status), cudaGetErrorName(fill_status));
    return no_device ? 0 : 1;
  }
  int failures = 0;
  if (saxpy_status != cudaSuccess || fill_status != cudaSuccess) ++failures;
  for (int i = 0; i < 300; ++i) {
    if (y[i] != 2.0f * static_cast<float>(i) + 1.0f || filled[i] != 7.0f) ++failures;
  }
  std::printf("%s: saxpy and fill on %d device(s)\n", failures == 0 ? "ok" : "FAILED", devices);
  return failures == 0 ? 0 : 1;
}
