// y = a * x + y on the current CUDA device, for host callers (C++ or CUDA).
#pragma once

#include <cuda_runtime_api.h>

// Copies x and y (n floats each) to the device, runs the kernel, copies y back; returns
// the first CUDA error (cudaErrorNoDevice where there is no GPU).
cudaError_t saxpy_on_device(int n, float a, const float* x, float* y);
