// cuDNN's CTC loss on the CUDA key, shared by both variants: _cudnn_ctc_loss with the
// lengths as lists (what F.ctc_loss reaches once _use_cudnn_ctc_loss says yes) and its
// .Tensor overload with them as tensors, as stock's cudnn/LossCTC.cpp computes them: stock's
// checks and messages (3-d float log-probabilities on the GPU, 1-d contiguous int32 targets,
// on the CPU for the list overload, a length per sample, blank 0), then one plan
// (cudnn/ctc_loss_plan.h) that the variant's executor runs on the current stream. It returns
// the costs and the gradient with respect to the log-probabilities, which the autograd
// formula (_cudnn_ctc_loss_backward) scales by the costs' gradient.
//
// The .Tensor overload moves CPU targets and lengths to the GPU (stock moves the targets and
// would hand cuDNN host pointers for lengths). An empty batch makes no cuDNN call. The
// gradient starts zeroed: cuDNN leaves the steps past a sample's input length unwritten.
#include <cstdint>
#include <memory>
#include <tuple>
#include <vector>

#include <ATen/TensorUtils.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/zeros_like.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/ScalarType.h>
#include <torch/library.h>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/ctc_loss_executable.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/ctc_loss_plan.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn_operands.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_backend.h"

namespace torch_cuda::native {
namespace {

using at::Tensor;

constexpr const char* kOp = "cudnn_ctc_loss";

// Stock's checks of both overloads; `targets_on` is where the targets must be.
void check_operands(const Tensor& log_probs_t, const Tensor& targets_t, c10::Backend targets_on,
                    std::int64_t input_lengths, std::int64_t target_lengths, int64_t blank) {
  const at::TensorArg log_probs{log_probs_t, "log_probs", 1}, targets{targets_t, "targets", 2};
  at::checkDim(kOp, log_probs, 3);
  at::checkScalarType(kOp, log_probs, at::kFloat);
  at::checkDim(kOp, targets, 1);
  at::checkScalarType(kOp, targets, at::kInt);
  at::checkContiguous(kOp, targets);
  at::checkBackend(kOp, {*log_probs}, c10::Backend::CUDA);
  at::checkBackend(kOp, {*targets}, targets_on);
  const std::int64_t batch = log_probs->size(1);
  TORCH_CHECK(input_lengths == batch, "input_lengths needs to have size to match batch_size");
  TORCH_CHECK(target_lengths == batch, "target_lengths needs to have size to match batch_size");
  TORCH_CHECK(blank == 0, "blank must be label 0 for cudnn_ctc_loss");
}

cudnn::CtcLossCall call_of(const Tensor& log_probs, cudnn::CtcLengths lengths, bool deterministic) {
  cudnn::CtcLossCall call;
  copy_shape(log_probs, call.sizes, call.strides);
  call.lengths = lengths;
  call.deterministic = deterministic;
  return call;
}

// Plans and runs `call`: the costs (N) and the gradient (dense, log_probs' shape).
std::tuple<Tensor, Tensor> run_call(const cudnn::CtcLossCall& call, const Tensor& log_probs,
                                    cudnn::CtcLossBuffers buffers) {
  Tensor costs = at::empty({log_probs.size(1)}, log_probs.options());
  Tensor grad = at::zeros_like(log_probs, at::MemoryFormat::Contiguous);
  if (log_probs.size(1) == 0) return {costs, grad};
  const auto executable = planned([&] { return cudnn::make_ctc_loss_executable(cudnn::plan_ctc_loss(call)); });
  const Tensor workspace = at::empty({executable->workspace_size()}, log_probs.options().dtype(at::kByte));
  buffers.activations = log_probs.const_data_ptr();
  buffers.costs = costs.data_ptr();
  buffers.gradients = grad.data_ptr();
  buffers.workspace = workspace.data_ptr();
  executable->run(buffers, backend().streams().current_handle(log_probs.device().index()));
  return {costs, grad};
}

std::tuple<Tensor, Tensor> ctc_loss_host_lengths(const Tensor& log_probs, const Tensor& targets,
                                                 at::IntArrayRef input_lengths, at::IntArrayRef target_lengths,
                                                 int64_t blank, bool deterministic, bool /*zero_infinity*/) {
  check_operands(log_probs, targets, c10::Backend::CPU, static_cast<std::int64_t>(input_lengths.size()),
                 static_cast<std::int64_t>(target_lengths.size()), blank);
  const c10::DeviceGuard guard(log_probs.device());
  cudnn::CtcLossCall call = call_of(log_probs, cudnn::CtcLengths::kHost, deterministic);
  const int* labels = targets.const_data_ptr<int>();
  call.labels.assign(labels, labels + targets.numel());
  call.input_lengths = input_lengths.vec();
  call.label_lengths = target_lengths.vec();
  return run_call(call, log_probs, {});
}

// A length tensor's count as stock reads it: a 0-d tensor is one length.
std::int64_t count_of(const Tensor& lengths) { return lengths.dim() == 0 ? 1 : lengths.size(0); }

std::tuple<Tensor, Tensor> ctc_loss_device_lengths(const Tensor& log_probs, const Tensor& targets_t,
                                                   const Tensor& input_lengths_t, const Tensor& target_lengths_t,
                                                   int64_t blank, bool deterministic, bool /*zero_infinity*/) {
  const auto on_gpu = [&](const Tensor& t) { return t.is_cpu() ? t.to(log_probs.device()) : t; };
  const Tensor targets = on_gpu(targets_t);
  check_operands(log_probs, targets, c10::Backend::CUDA, count_of(input_lengths_t), count_of(target_lengths_t),
                 blank);
  const c10::DeviceGuard guard(log_probs.device());
  const Tensor input_lengths = on_gpu(input_lengths_t).contiguous();
  const Tensor target_lengths = on_gpu(target_lengths_t).contiguous();
  at::checkAllSameGPU(kOp, {{log_probs, "log_probs", 1},
                            {targets, "targets", 2},
                            {input_lengths, "input_lengths", 3},
                            {target_lengths, "target_lengths", 4}});
  cudnn::CtcLossCall call = call_of(log_probs, cudnn::CtcLengths::kDevice, deterministic);
  call.label_capacity = targets.numel();
  cudnn::CtcLossBuffers buffers;
  buffers.labels = targets.const_data_ptr<int>();
  buffers.input_lengths = input_lengths.const_data_ptr<int>();
  buffers.label_lengths = target_lengths.const_data_ptr<int>();
  return run_call(call, log_probs, buffers);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, CUDA, m) {
  m.impl("_cudnn_ctc_loss", TORCH_FN(ctc_loss_host_lengths));
  m.impl("_cudnn_ctc_loss.Tensor", TORCH_FN(ctc_loss_device_lengths));
}

}  // namespace torch_cuda::native
