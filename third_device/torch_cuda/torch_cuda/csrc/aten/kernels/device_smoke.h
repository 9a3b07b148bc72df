// A round trip through the GPU: allocate, copy, run a kernel, copy back, compare.
#pragma once

#include <cstdint>

namespace torch_cuda {

// Runs launch_add_f32 on n elements of device `device` and returns the largest
// absolute difference from the host result. Throws CudaError on any CUDA failure
// and std::out_of_range for a device index that does not exist.
double device_add_round_trip(int device, std::int64_t n);

}  // namespace torch_cuda
