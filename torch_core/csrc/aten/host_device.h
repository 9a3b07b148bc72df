// TORCH_CORE_HOST_DEVICE marks a function (a kernel functor's operator(), an index
// helper) that is compiled for the host and, when the translation unit is compiled by a
// CUDA compiler, for the device too. Functors written once with it run in the host loops
// of kernel_loop.h (torch_core, the simulated device, CI) and in a backend's device loops
// (third_device/torch_cuda/torch_cuda/csrc/aten/cuda_loop.cuh), so host and GPU share one definition
// of every op. torch_core never depends on @cuda: this header names no CUDA header, only
// the attribute spellings nvcc (and clang in CUDA mode) define.
#pragma once

#if defined(__CUDACC__) || defined(__HIPCC__)
#define TORCH_CORE_HOST_DEVICE __host__ __device__
#else
#define TORCH_CORE_HOST_DEVICE
#endif
