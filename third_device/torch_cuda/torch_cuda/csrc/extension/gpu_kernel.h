// torch_cuda's kernel engine for C++ extensions: one elementwise functor over an ATen
// TensorIterator, the way stock's ATen/native/cuda/Loops.cuh gpu_kernel runs one (dynamic
// casting of every operand, host scalars, any strides), on the current CUDA stream of the
// iterator's device.
//
// The functor is written once, `C10_HOST_DEVICE` on its operator(). Compiled by nvcc (the
// real variant), it runs as a GPU kernel; compiled by the host compiler (how the simulated
// variant builds an extension's .cu sources), it runs on the simulated device's host
// engine, in stream order with torch_cuda's own kernels.
#pragma once

#include <ATen/TensorIterator.h>
#include <c10/core/DeviceType.h>
#include <c10/util/Exception.h>

#if defined(__CUDACC__)
#include "third_device/torch_cuda/torch_cuda/csrc/aten/engine/cuda_executor.cuh"
#include "torch_core/csrc/aten/engine/iterator_loop.h"
#include "torch_core/csrc/extension/kernel_operands.h"
#else
#include "torch_core/csrc/extension/host_kernel.h"
#endif

namespace torch_cuda {

template <typename F>
void gpu_kernel(at::TensorIteratorBase& iter, const F& f) {
  TORCH_CHECK(iter.device_type() == c10::DeviceType::CUDA, "torch_cuda::gpu_kernel runs on CUDA tensors; got ",
              iter.device_type(), " tensors");
#if defined(__CUDACC__)
  torch_core::extension::check_operands<F>(iter, "gpu_kernel");
  if (iter.numel() == 0) return;
  const auto stream = static_cast<cudaStream_t>(torch_core::engine::current_stream(iter));
  engine::CudaExecutor{stream}.run(f, torch_core::engine::describe(iter));
#else
  torch_core::extension::host_kernel(iter, f);
#endif
}

}  // namespace torch_cuda
