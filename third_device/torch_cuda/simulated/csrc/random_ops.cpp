// normal_ and uniform_ on the simulated CUDA device: torch_core's host-loop Philox kernels
// over the device's generator (torch_core::PhiloxGenerator, the CUDA default generators),
// so torch.cuda.manual_seed replays them. What they do not cover goes to the CPU fallback
// (counted there).
#include <optional>

#include <ATen/core/Tensor.h>
#include <ATen/ops/normal_ops.h>
#include <ATen/ops/uniform_ops.h>
#include <torch/library.h>

#include "third_device/torch_cuda/csrc/framework/cuda_backend.h"
#include "third_device/torch_cuda/simulated/csrc/simulated_variant.h"
#include "torch_core/aten/host_loop_kernels.h"

namespace torch_cuda::simulated {

namespace {

at::Tensor& normal_(at::Tensor& self, double mean, double std, std::optional<at::Generator> generator) {
  if (!torch_core::host_normal_(backend(), &launch, self, mean, std, generator)) {
    return fall_back<at::_ops::normal_>(self, mean, std, generator);
  }
  return self;
}

at::Tensor& uniform_(at::Tensor& self, double from, double to, std::optional<at::Generator> generator) {
  if (!torch_core::host_uniform_(backend(), &launch, self, from, to, generator)) {
    return fall_back<at::_ops::uniform_>(self, from, to, generator);
  }
  return self;
}

}  // namespace

}  // namespace torch_cuda::simulated

// Static registration (the target is alwayslink).
TORCH_LIBRARY_IMPL(aten, CUDA, m) {
  m.impl("normal_", TORCH_FN(torch_cuda::simulated::normal_));
  m.impl("uniform_", TORCH_FN(torch_cuda::simulated::uniform_));
}
