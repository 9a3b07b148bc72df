// The plans of torch_cuda's cuDNN grid sampler (cuDNN's spatial transformer sampler), in
// plain host C++ so that both variants run the same plan. The CUDA key's
// cudnn_grid_sampler and cudnn_grid_sampler_backward (cudnn_grid_sampler_ops.cpp) describe
// the call and plan it; an executor runs the plan:
//   real       cudnn/cudnn_grid_sampler_executor.cpp: a bilinear sampler descriptor of the
//              output's size, the input's and the output's tensor descriptors, and
//              cudnnSpatialTfSampler{Forward,Backward}
//   simulated  simulated/csrc/host_grid_sampler.cpp: the same call on the host with
//              cuDNN's documented semantics (bilinear, the grid's -1 and 1 the centres of
//              the edge pixels, zero outside the input)
// so a wrong layout or coordinate convention in a plan fails in CI.
//
// Tensors: the input (N, C, H, W) through its strides; the grid (N, Ho, Wo, 2) dense, x
// then y; the output and the input's gradient (N, C, Ho, Wo) and (N, C, H, W) dense; the
// output's gradient through its strides.
#pragma once

#include <array>
#include <cstdint>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_tensors.h"

namespace torch_cuda::cudnn {

enum class SamplerPass : std::int8_t { kForward, kBackward };

// What the operator asks for.
struct GridSamplerCall {
  SamplerPass pass = SamplerPass::kForward;
  DataType data_type = DataType::kFloat;
  TensorGeometry input;     // N, C, H, W
  TensorGeometry grad_out;  // backward: N, C, Ho, Wo
  std::int64_t out_height = 0;
  std::int64_t out_width = 0;
};

// One cuDNN call; sizes and strides in cuDNN's ints (checked).
struct GridSamplerPlan {
  SamplerPass pass = SamplerPass::kForward;
  DataType data_type = DataType::kFloat;
  std::array<int, 4> x_sizes{};
  std::array<int, 4> x_strides{};
  std::array<int, 4> y_sizes{};    // N, C, Ho, Wo: the sampler descriptor's size
  std::array<int, 4> dy_strides{};  // backward; the forward's output is dense
};

// The plan of `call`. Throws std::invalid_argument, saying which, for bfloat16, a
// non-positive size, gradient sizes other than the output's, or a size or stride beyond
// cuDNN's int.
GridSamplerPlan plan_grid_sampler(const GridSamplerCall& call);

}  // namespace torch_cuda::cudnn
