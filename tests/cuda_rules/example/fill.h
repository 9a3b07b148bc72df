// Fills n floats on the device with `value`, for host callers.
#pragma once

#include <cuda_runtime_api.h>

cudaError_t fill_on_device(int n, float value, float* host_out);
