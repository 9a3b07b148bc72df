// cuDNN's convolutions on the CUDA key, shared by both variants: cudnn_convolution (and its
// out= overload) and cudnn_convolution_transpose, and the CUDA slots of the backward stubs
// convolution_backward calls for them, as stock's ConvShared.cpp computes them: stock's own
// argument checks (convolution_shape_check, same type, same GPU), the output in the memory
// format stock's cuDNN path suggests (channels-last when the input or the weight is, except
// for double), the operands made contiguous in it, then one plan (cudnn/conv_plan.h) per
// call whose executable comes from the device's cache and runs on the current stream with a
// work area from the caching allocator: cuDNN in the real variant, the same call on the
// host in the simulated one. A transposed convolution's forward is the convolution's
// backward-data, as in stock. A 1-d convolution is run as a 2-d one of height 1, as stock's
// convolution views it before calling cuDNN.
//
// F.conv* comes here when stock's convolution chooses cuDNN (_select_conv_backend: the CUDA
// hooks report cuDNN, torch.backends.cudnn.enabled, ...); the gradients of the operators
// called directly are stock's formulas over convolution_backward, which comes back to the
// stubs.
#include <array>
#include <cstdint>
#include <tuple>
#include <vector>

#include <ATen/TensorUtils.h>
#include <ATen/core/Tensor.h>
#include <ATen/native/ConvUtils.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/add.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/zeros_like.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/ScalarType.h>
#include <c10/util/irange.h>
#include <torch/library.h>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/conv_executable.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/conv_plan.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn_operands.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_backend.h"
#include "torch_core/csrc/aten/engine/stub_slot.h"

namespace torch_cuda::native {
namespace {

// The suggestion of stock's cudnn_conv_suggest_memory_format in a build with cuDNN.
at::MemoryFormat suggest_memory_format(const at::Tensor& input, const at::Tensor& weight) {
  const bool enabled = input.scalar_type() != at::kDouble && weight.scalar_type() != at::kDouble;
  return at::native::_conv_suggest_memory_format_impl(input, weight, enabled);
}

// A 3-d (N, C, L) tensor as (N, C, 1, L); others as they are.
at::Tensor as_2d(const at::Tensor& t) { return t.dim() == 3 ? t.unsqueeze(2) : t; }

std::vector<int64_t> as_2d(at::IntArrayRef args, int64_t fill, bool one_d) {
  std::vector<int64_t> result(args.begin(), args.end());
  if (one_d) result.insert(result.begin(), fill);
  return result;
}

// Runs one cuDNN call over tensors already in the plan's layout (x, w, y as in ConvKey).
void run_call(cudnn::ConvDirection direction, const at::Tensor& x, const at::Tensor& w, const at::Tensor& y,
              at::IntArrayRef padding, at::IntArrayRef stride, at::IntArrayRef dilation, int64_t groups, bool benchmark,
              bool deterministic, bool allow_tf32) {
  const bool one_d = x.dim() == 3;
  const at::Tensor x4 = as_2d(x), w4 = as_2d(w), y4 = as_2d(y);
  const std::vector<int64_t> pad = as_2d(padding, 0, one_d), str = as_2d(stride, 1, one_d),
                             dil = as_2d(dilation, 1, one_d);
  cudnn::ConvKey key;
  key.direction = direction;
  key.data_type = cudnn_data_type_of(x.scalar_type(), "cuDNN's convolution");
  key.spatial = static_cast<int>(x4.dim()) - 2;
  key.x = geometry(x4);
  key.w = geometry(w4);
  key.y = geometry(y4);
  for (const auto i : c10::irange(key.spatial)) {
    key.padding[i] = pad[i];
    key.stride[i] = str[i];
    key.dilation[i] = dil[i];
  }
  key.groups = groups;
  key.deterministic = deterministic;
  key.benchmark = benchmark;
  key.allow_tf32 = allow_tf32;
  const cudnn::ConvPlan plan = planned([&] { return cudnn::plan_conv(key); });
  const c10::DeviceIndex device = x.device().index();
  const cudnn::ConvBuffers buffers{x4.data_ptr(), w4.data_ptr(), y4.data_ptr()};
  const torch_core::StreamHandle stream = backend().streams().current_handle(device);
  at::Tensor tuning_area;  // benchmark's work area, from the caching allocator (stock's FindEx)
  const cudnn::ConvTuning tuning{buffers, stream, [&](int64_t bytes) {
                                   tuning_area = at::empty({bytes}, x.options().dtype(at::kByte));
                                   return tuning_area.data_ptr();
                                 }};
  const auto executable =
      cudnn::conv_cache(device).lookup(key, [&] { return cudnn::make_conv_executable(plan, tuning); });
  tuning_area = at::Tensor();
  const at::Tensor workspace = at::empty({executable->workspace_size()}, x.options().dtype(at::kByte));
  executable->run(buffers, workspace.data_ptr(), stream);
}

// The call, a batch slice at a time where its input or output has more elements than
// cuDNN's int (stock's split_batch_dim_to_32bit_out); the weight's gradient sums the slices'.
void run_plan(cudnn::ConvDirection direction, const at::Tensor& x, const at::Tensor& w, const at::Tensor& y,
              at::IntArrayRef padding, at::IntArrayRef stride, at::IntArrayRef dilation, int64_t groups, bool benchmark,
              bool deterministic, bool allow_tf32) {
  const std::vector<cudnn::BatchSlice> slices =
      planned([&] { return cudnn::conv_batch_slices(x.size(0), x.numel(), y.numel()); });
  at::Tensor partial;  // one slice's weight gradient
  for (const cudnn::BatchSlice& slice : slices) {
    const at::Tensor xs = x.narrow(0, slice.start, slice.size), ys = y.narrow(0, slice.start, slice.size);
    const bool summed = direction == cudnn::ConvDirection::kBackwardFilter && slice.start > 0;
    if (summed && !partial.defined()) partial = at::empty_like(w);
    run_call(direction, xs, summed ? partial : w, ys, padding, stride, dilation, groups, benchmark, deterministic,
             allow_tf32);
    if (summed) w.add_(partial);
  }
}

void check_operands(at::CheckedFrom c, const at::TensorArg& input, const at::TensorArg& weight) {
  at::checkAllSameType(c, {input, weight});
  at::checkAllSameGPU(c, {input, weight});
}

at::Tensor cudnn_forward(const at::Tensor& input_t, const at::Tensor& weight_t, at::IntArrayRef padding,
                             at::IntArrayRef stride, at::IntArrayRef dilation, int64_t groups, bool benchmark,
                             bool deterministic, bool allow_tf32) {
  const at::TensorArg input{input_t, "input", 1}, weight{weight_t, "weight", 2};
  const at::CheckedFrom c = "cudnn_convolution";
  check_operands(c, input, weight);
  // Stock's shape checks, before the output's size is computed (it divides by the stride).
  // The output has the input's rank, which is all they check of it.
  at::native::convolution_shape_check(c, input, weight, input, padding, stride, dilation, groups);
  const c10::DeviceGuard guard(input_t.device());
  const auto memory_format = suggest_memory_format(input_t, weight_t);
  at::Tensor output_t = at::empty(at::native::conv_output_size(input_t.sizes(), weight_t.sizes(), padding, stride,
                                                               dilation),
                                  input_t.options().memory_format(memory_format));
  if (output_t.numel() == 0) return output_t;
  run_plan(cudnn::ConvDirection::kForward, input_t.contiguous(memory_format), weight_t.contiguous(memory_format),
           output_t, padding, stride, dilation, groups, benchmark, deterministic, allow_tf32);
  return output_t;
}

at::Tensor& cudnn_forward_out(const at::Tensor& input, const at::Tensor& weight, at::IntArrayRef padding,
                                  at::IntArrayRef stride, at::IntArrayRef dilation, int64_t groups, bool benchmark,
                                  bool deterministic, bool allow_tf32, at::Tensor& out) {
  const at::Tensor result =
      cudnn_forward(input, weight, padding, stride, dilation, groups, benchmark, deterministic, allow_tf32);
  at::native::resize_output(out, result.sizes());
  return out.copy_(result);
}

at::Tensor cudnn_transpose(const at::Tensor& input_t, const at::Tensor& weight_t, at::IntArrayRef padding,
                                       at::IntArrayRef output_padding, at::IntArrayRef stride,
                                       at::IntArrayRef dilation, int64_t groups, bool benchmark, bool deterministic,
                                       bool allow_tf32) {
  const at::TensorArg input{input_t, "input", 1}, weight{weight_t, "weight", 2};
  const at::CheckedFrom c = "cudnn_convolution_transpose";
  check_operands(c, input, weight);
  const c10::DeviceGuard guard(input_t.device());
  const auto memory_format = suggest_memory_format(input_t, weight_t);
  // The transposed convolution's output is the input of the convolution it transposes.
  at::Tensor output_t = at::empty(at::native::conv_input_size(input_t.sizes(), weight_t.sizes(), padding,
                                                              output_padding, stride, dilation, groups),
                                  input_t.options().memory_format(memory_format));
  const at::TensorArg output{output_t, "result", 0};
  at::native::convolution_shape_check(c, output, weight, input, padding, stride, dilation, groups);
  if (output_t.numel() == 0 || input_t.numel() == 0) return output_t.zero_();
  run_plan(cudnn::ConvDirection::kBackwardData, output_t, weight_t.contiguous(memory_format),
           input_t.contiguous(memory_format), padding, stride, dilation, groups, benchmark, deterministic, allow_tf32);
  return output_t;
}

// The gradient of the input: a backward-data call into a tensor of the input's size, in the
// memory format stock suggests for grad_output and the weight.
at::Tensor backward_input(at::IntArrayRef input_size, const at::Tensor& grad_output, const at::Tensor& weight,
                          at::IntArrayRef padding, at::IntArrayRef stride, at::IntArrayRef dilation, int64_t groups,
                          bool benchmark, bool deterministic, bool allow_tf32) {
  const at::TensorArg grad_output_arg{grad_output, "grad_output", 1}, weight_arg{weight, "weight", 2};
  const at::CheckedFrom c = "cudnn_convolution_backward_input";
  check_operands(c, grad_output_arg, weight_arg);
  const auto memory_format = suggest_memory_format(grad_output, weight);
  at::Tensor grad_input = at::empty(input_size, grad_output.options().memory_format(memory_format));
  const at::TensorArg grad_input_arg{grad_input, "result", 0};
  at::native::convolution_shape_check(c, grad_input_arg, weight_arg, grad_output_arg, padding, stride, dilation,
                                      groups);
  run_plan(cudnn::ConvDirection::kBackwardData, grad_input, weight.contiguous(memory_format),
           grad_output.contiguous(memory_format), padding, stride, dilation, groups, benchmark, deterministic,
           allow_tf32);
  return grad_input;
}

// The gradient of the weight: a backward-filter call from the input and grad_output.
at::Tensor backward_weight(at::IntArrayRef weight_size, const at::Tensor& grad_output, const at::Tensor& input,
                           at::IntArrayRef padding, at::IntArrayRef stride, at::IntArrayRef dilation, int64_t groups,
                           bool benchmark, bool deterministic, bool allow_tf32) {
  const at::TensorArg grad_output_arg{grad_output, "grad_output", 1}, input_arg{input, "input", 2};
  const at::CheckedFrom c = "cudnn_convolution_backward_weight";
  check_operands(c, grad_output_arg, input_arg);
  const auto memory_format = suggest_memory_format(input, grad_output);
  at::Tensor grad_weight = at::empty(weight_size, grad_output.options().memory_format(memory_format));
  const at::TensorArg grad_weight_arg{grad_weight, "result", 0};
  at::native::convolution_shape_check(c, input_arg, grad_weight_arg, grad_output_arg, padding, stride, dilation,
                                      groups);
  run_plan(cudnn::ConvDirection::kBackwardFilter, input.contiguous(memory_format), grad_weight,
           grad_output.contiguous(memory_format), padding, stride, dilation, groups, benchmark, deterministic,
           allow_tf32);
  return grad_weight;
}

// cudnn_convolution_backward_stub's CUDA slot: what convolution_backward runs for a
// convolution it gave cuDNN (the bias's gradient it sums itself).
std::tuple<at::Tensor, at::Tensor> convolution_backward(const at::Tensor& input, const at::Tensor& grad_output_t,
                                                        const at::Tensor& weight, at::IntArrayRef padding,
                                                        at::IntArrayRef stride, at::IntArrayRef dilation,
                                                        int64_t groups, bool benchmark, bool deterministic,
                                                        bool allow_tf32, std::array<bool, 2> output_mask) {
  const c10::DeviceGuard guard(input.device());
  const at::Tensor grad_output = grad_output_t.to(input.suggest_memory_format());
  at::Tensor grad_input, grad_weight;
  if (input.numel() == 0) {
    if (output_mask[0]) grad_input = at::empty_like(input, at::MemoryFormat::Contiguous);
    if (output_mask[1]) grad_weight = at::zeros_like(weight, at::MemoryFormat::Contiguous);
    return {grad_input, grad_weight};
  }
  if (output_mask[0]) {
    grad_input = backward_input(input.sizes(), grad_output, weight, padding, stride, dilation, groups, benchmark,
                                deterministic, allow_tf32);
  }
  if (output_mask[1]) {
    grad_weight = backward_weight(weight.sizes(), grad_output, input, padding, stride, dilation, groups, benchmark,
                                  deterministic, allow_tf32);
  }
  return {grad_input, grad_weight};
}

// cudnn_convolution_transpose_backward_stub's CUDA slot: a transposed convolution's input
// gradient is the convolution of grad_output, its weight's gradient a backward-filter call
// with grad_output as the convolution's input and the input as its output's gradient.
std::tuple<at::Tensor, at::Tensor> transpose_backward(const at::Tensor& input, const at::Tensor& grad_output_t,
                                                      const at::Tensor& weight, at::IntArrayRef padding,
                                                      at::IntArrayRef /*output_padding*/, at::IntArrayRef stride,
                                                      at::IntArrayRef dilation, int64_t groups, bool benchmark,
                                                      bool deterministic, bool allow_tf32,
                                                      std::array<bool, 2> output_mask) {
  const c10::DeviceGuard guard(input.device());
  const at::Tensor grad_output = grad_output_t.contiguous(input.suggest_memory_format());
  at::Tensor grad_input, grad_weight;
  if (output_mask[0]) {
    grad_input = cudnn_forward(grad_output, weight, padding, stride, dilation, groups, benchmark, deterministic,
                               allow_tf32);
  }
  if (output_mask[1]) {
    grad_weight = backward_weight(weight.sizes(), input, grad_output, padding, stride, dilation, groups, benchmark,
                                  deterministic, allow_tf32);
  }
  return {grad_input, grad_weight};
}

const bool registered = [] {
  torch_core::engine::set_slot(at::native::cudnn_convolution_backward_stub, c10::DeviceType::CUDA,
                               &convolution_backward);
  torch_core::engine::set_slot(at::native::cudnn_convolution_transpose_backward_stub, c10::DeviceType::CUDA,
                               &transpose_backward);
  return true;
}();

}  // namespace

TORCH_LIBRARY_IMPL(aten, CUDA, m) {
  m.impl("cudnn_convolution", TORCH_FN(cudnn_forward));
  m.impl("cudnn_convolution.out", TORCH_FN(cudnn_forward_out));
  m.impl("cudnn_convolution_transpose", TORCH_FN(cudnn_transpose));
}

}  // namespace torch_cuda::native
