// The header stock CUDA torch's build generates from c10/cuda/impl/cuda_cmake_macros.h.in,
// which the CPU wheel's c10/cuda headers include but do not ship. torch_cuda supplies it
// (a build of shared libraries, as stock's), so that c10/cuda/CUDAStream.h, CUDAGuard.h,
// CUDAException.h and ATen/cuda/CUDAContext.h compile for extensions and for
// torch_cuda's definitions of their functions.
#pragma once

#define C10_CUDA_BUILD_SHARED_LIBS
