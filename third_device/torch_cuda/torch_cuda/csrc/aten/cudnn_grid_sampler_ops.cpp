// cuDNN's grid sampler on the CUDA key, shared by both variants: cudnn_grid_sampler and
// cudnn_grid_sampler_backward as stock's cudnn/GridSampler.cpp computes them (what
// F.grid_sample runs for bilinear, zero padding and align_corners once cuDNN is in):
// stock's checks and messages (check_grid_sampler_common, what cuDNN accepts, the grid
// (N, Ho, Wo, 2) contiguous, same GPU and type, 4-d), the output and the gradients dense,
// an input with a zero stride made contiguous, then one plan (cudnn/grid_sampler_plan.h)
// that the variant's executor runs on the current stream.
//
// Stock asks cudnn_is_acceptable, which also asks the CUDA hooks whether cuDNN is compiled
// in; these operators answer that themselves (they are cuDNN), and keep the rest of it:
// cuDNN enabled, CUDA tensors of double, float or half, not empty, 32-bit indexable, at
// most 1024 channels.
#include <cstdint>
#include <tuple>

#include <ATen/Context.h>
#include <ATen/TensorUtils.h>
#include <ATen/core/Tensor.h>
#include <ATen/native/CanUse32BitIndexMath.h>
#include <ATen/native/GridSamplerUtils.h>
#include <ATen/ops/empty.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/ScalarType.h>
#include <torch/library.h>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/grid_sampler_executable.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/grid_sampler_plan.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn_operands.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_backend.h"

namespace torch_cuda::native {
namespace {

using at::Tensor;

// cond_cudnn_grid_sampler without the hooks' question.
bool cudnn_takes(const Tensor& input, const Tensor& grid) {
  for (const Tensor* t : {&input, &grid}) {
    const auto type = t->scalar_type();
    if (type != at::kDouble && type != at::kFloat && type != at::kHalf) return false;
    if (!t->is_cuda() || t->numel() == 0 || !at::native::canUse32BitIndexMath(*t)) return false;
  }
  return at::globalContext().userEnabledCuDNN() && input.dim() == 4 && input.size(1) <= 1024;
}

Tensor contiguous_if_zero_in_strides(const Tensor& t) {
  for (const auto stride : t.strides()) {
    if (stride == 0) return t.contiguous();
  }
  return t;
}

// Stock's checkGridSize: the grid (N, Ho, Wo, 2), contiguous.
void check_grid_size(at::CheckedFrom c, const at::TensorArg& grid, const at::TensorArg& input) {
  at::checkContiguous(c, grid);
  at::checkDim(c, grid, 4);
  at::checkSize(c, grid, 0, input->size(0));
  at::checkSize(c, grid, 3, 2);
}

cudnn::GridSamplerCall describe(cudnn::SamplerPass pass, const Tensor& input, const Tensor& grid, const char* op) {
  cudnn::GridSamplerCall call;
  call.pass = pass;
  call.data_type = cudnn_data_type_of(input.scalar_type(), op);
  call.input = geometry(input);
  call.out_height = grid.size(1);
  call.out_width = grid.size(2);
  return call;
}

void run_plan(const cudnn::GridSamplerCall& call, const Tensor& input, const cudnn::GridSamplerBuffers& buffers) {
  const auto executable =
      cudnn::make_grid_sampler_executable(planned([&] { return cudnn::plan_grid_sampler(call); }));
  executable->run(buffers, backend().streams().current_handle(input.device().index()));
}

Tensor sampler_forward(const Tensor& input_t, const Tensor& grid_t) {
  at::native::check_grid_sampler_common(input_t, grid_t);
  TORCH_CHECK(cudnn_takes(input_t, grid_t), "Invalid arguments to cudnn_grid_sampler_forward");
  const Tensor input_c = contiguous_if_zero_in_strides(input_t), grid_c = grid_t.contiguous();
  const at::TensorArg input{input_c, "input", 1}, grid{grid_c, "grid", 2};
  const at::CheckedFrom c = "cudnn_grid_sampler_forward";
  at::checkAllSameGPU(c, {input, grid});
  at::checkAllSameType(c, {input, grid});
  check_grid_size(c, grid, input);
  at::checkDim(c, input, 4);
  const c10::DeviceGuard guard(input_t.device());
  Tensor output = at::empty({input_c.size(0), input_c.size(1), grid_c.size(1), grid_c.size(2)}, input_c.options());
  cudnn::GridSamplerBuffers buffers;
  buffers.x = input_c.const_data_ptr();
  buffers.grid = grid_c.const_data_ptr();
  buffers.y = output.data_ptr();
  run_plan(describe(cudnn::SamplerPass::kForward, input_c, grid_c, c), input_c, buffers);
  return output;
}

// cuDNN has no output mask: both gradients, always.
std::tuple<Tensor, Tensor> sampler_backward(const Tensor& input_t, const Tensor& grid_t, const Tensor& grad_output_t) {
  at::native::check_grid_sampler_common(input_t, grid_t);
  TORCH_CHECK(cudnn_takes(input_t, grid_t), "Invalid arguments to cudnn_grid_sampler_backward");
  at::globalContext().alertNotDeterministic("cudnn_grid_sampler_backward");
  const Tensor input_c = contiguous_if_zero_in_strides(input_t), grid_c = grid_t.contiguous(),
               grad_output_c = contiguous_if_zero_in_strides(grad_output_t);
  const at::TensorArg input{input_c, "input", 1}, grid{grid_c, "grid", 2}, grad_output{grad_output_c, "grad_output", 3};
  const at::CheckedFrom c = "cudnn_grid_sampler_backward";
  at::checkAllSameGPU(c, {input, grad_output, grid});
  check_grid_size(c, grid, input);
  at::checkDim(c, input, 4);
  at::checkDim(c, grad_output, 4);
  at::checkAllSameType(c, {input, grid, grad_output});
  const c10::DeviceGuard guard(input_t.device());
  Tensor grad_input = at::empty(input_c.sizes(), input_c.options());
  Tensor grad_grid = at::empty(grid_c.sizes(), grid_c.options());
  cudnn::GridSamplerCall call = describe(cudnn::SamplerPass::kBackward, input_c, grid_c, c);
  call.grad_out = geometry(grad_output_c);
  cudnn::GridSamplerBuffers buffers;
  buffers.x = input_c.const_data_ptr();
  buffers.grid = grid_c.const_data_ptr();
  buffers.dy = grad_output_c.const_data_ptr();
  buffers.dx = grad_input.data_ptr();
  buffers.dgrid = grad_grid.data_ptr();
  run_plan(call, input_c, buffers);
  return {grad_input, grad_grid};
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, CUDA, m) {
  m.impl("cudnn_grid_sampler", TORCH_FN(sampler_forward));
  m.impl("cudnn_grid_sampler_backward", TORCH_FN(sampler_backward));
}

}  // namespace torch_cuda::native
