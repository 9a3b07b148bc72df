// A __device__ function defined in its own translation unit (device_math.cu): a kernel in
// another one can call it only as relocatable device code, device-linked (rdc = True).
#pragma once

__device__ float scaled_add(float a, float x, float y);
