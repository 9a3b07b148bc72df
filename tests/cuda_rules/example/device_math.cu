#include "device_math.cuh"

// `defines` of :device_math, which its CUDA dependents see too.
#ifndef EXAMPLE_DEVICE_DEFINE
#error "EXAMPLE_DEVICE_DEFINE (defines of :device_math) is missing"
#endif

__device__ float scaled_add(float a, float x, float y) { return a * x + y; }
