// at::CUDAHooksInterface over torch_cuda's backend: what ATen asks of CUDA outside the
// dispatcher (at::globalContext().lazyInitDevice(kCUDA), default generators, pinned
// memory, device count, versions). The stock CPU libtorch reaches CUDA only through this
// registry entry, so it is what makes the CPU wheel's ATen see a CUDA device.
//
// The registry is read once, while torch._C initialises (see torch_patches/
// load_before_torch_c.py): this library must be loaded before that, and every answer is
// computed lazily, so loading it creates no runtime and touches no device.
#pragma once

#include <cstdint>
#include <string>

#include <ATen/detail/CUDAHooksInterface.h>
#include <c10/core/Allocator.h>
#include <c10/core/Device.h>

#include "torch_core/csrc/device/backend_hooks.h"

namespace torch_cuda {

// torch_core's BackendHooks (availability, devices, generators, pinned memory) over the
// CUDA backend, and what only CUDA's interface asks.
class CUDAHooks final : public torch_core::BackendHooks<at::CUDAHooksInterface> {
 public:
  explicit CUDAHooks(at::CUDAHooksArgs /*args*/);

  bool hasCUDA() const override;
  bool hasCUDART() const override { return true; }
  // Asked during torch._C's init, so these answer without creating the runtime. No MAGMA
  // in this backend; torch.linalg's solvers run on cuSOLVER (the simulated variant's
  // stand-in on the host), which stock's structured kernels ask before laying out their
  // outputs (svd's Vh, and whether svd takes `driver=`).
  bool hasMAGMA() const override { return false; }
  bool hasCuSOLVER() const override { return true; }
  long versionCUDART() const override;

  // cuDNN (cudnn/cudnn_version.h): what stock's convolution, batch norm, grid sampler and
  // RNNs ask (cudnn_is_acceptable and their own conditions) before calling the cuDNN
  // operators and stubs on the CUDA key, as a CUDA build of stock with cuDNN answers.
  bool hasCuDNN() const override { return true; }
  bool compiledWithCuDNN() const override { return true; }
  bool supportsDilatedConvolutionWithCuDNN() const override { return true; }
  bool supportsDepthwiseConvolutionWithCuDNN() const override;
  bool supportsBFloat16ConvolutionWithCuDNNv8() const override;
  bool supportsBFloat16RNNWithCuDNN() const override;
  long versionCuDNN() const override;
  long versionRuntimeCuDNN() const override;
  double batchnormMinEpsilonCuDNN() const override;
  std::string showConfig() const override;

  int getNumGPUs() const override;
  c10::DeviceIndex current_device() const override;
  void deviceSynchronize(c10::DeviceIndex device_index) const override;
  at::Allocator* getCUDADeviceAllocator() const override;

  // torch.backends.cuda.cufft_plan_cache[device] (fft/fft_plan_cache.h).
  int64_t cuFFTGetPlanCacheMaxSize(c10::DeviceIndex device_index) const override;
  void cuFFTSetPlanCacheMaxSize(c10::DeviceIndex device_index, int64_t max_size) const override;
  int64_t cuFFTGetPlanCacheSize(c10::DeviceIndex device_index) const override;
  void cuFFTClearPlanCache(c10::DeviceIndex device_index) const override;
};

}  // namespace torch_cuda
