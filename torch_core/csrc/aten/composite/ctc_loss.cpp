// Whether ctc_loss takes cuDNN's or MIOpen's path: _use_cudnn_ctc_loss and
// _use_miopen_ctc_loss, which stock dispatches for CUDA only (the CPU fallback would insist
// that the lengths, host tensors by design, share the log-probabilities' device).
//
// cuDNN's: stock's conditions (cudnn/LossCTC.cpp), asked only where the CUDA hooks say cuDNN
// is compiled in, as a backend on the CUDA key that has it says (torch_cuda's
// _cudnn_ctc_loss): cuDNN enabled, blank 0, 3-d float log-probabilities on the GPU, 1-d
// contiguous int32 targets (on the CPU for the list overload), every input as long as the
// log-probabilities, every target shorter than 256 and no longer than its input. Elsewhere
// the answer is no, as a stock build without cuDNN gives: ctc_loss then runs _ctc_loss.
// No backend has MIOpen's CTC.
//
// The .Tensor overload reads the lengths on the host; stock asserts them asynchronously
// instead while a CUDA graph is captured, which this one does not yet.
#include <cstdint>

#include <ATen/Context.h>
#include <ATen/core/Tensor.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <ATen/ops/_use_cudnn_ctc_loss_native.h>
#include <ATen/ops/_use_miopen_ctc_loss_native.h>
#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>
#include <c10/util/irange.h>

namespace at::native {
namespace {

// What both overloads ask before looking at the lengths.
bool cudnn_takes(const Tensor& log_probs, const Tensor& targets, int64_t blank) {
  return log_probs.device().type() == at::kCUDA && at::detail::getCUDAHooks().compiledWithCuDNN() &&
         at::globalContext().userEnabledCuDNN() && blank == 0 && targets.dim() == 1 &&
         log_probs.scalar_type() == at::kFloat && targets.scalar_type() == at::kInt && targets.is_contiguous() &&
         log_probs.dim() == 3;
}

// cuDNN's limit: targets shorter than 256, and (stock saw illegal memory accesses otherwise)
// none longer than its input.
bool lengths_fit(IntArrayRef input_lengths, IntArrayRef target_lengths) {
  for (const auto b : c10::irange(target_lengths.size())) {
    if (target_lengths[b] >= 256 || b >= input_lengths.size() || target_lengths[b] > input_lengths[b]) return false;
  }
  return true;
}

}  // namespace

bool _use_cudnn_ctc_loss(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths,
                         IntArrayRef target_lengths, int64_t blank) {
  if (!cudnn_takes(log_probs, targets, blank) || targets.device().type() != at::kCPU) return false;
  for (const auto input_length : input_lengths) {
    if (input_length != log_probs.size(0)) return false;
  }
  return lengths_fit(input_lengths, target_lengths);
}

bool _use_cudnn_ctc_loss_tensor(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                                const Tensor& target_lengths, int64_t blank) {
  if (!cudnn_takes(log_probs, targets, blank) || input_lengths.scalar_type() != at::kInt ||
      target_lengths.scalar_type() != at::kInt) {
    return false;
  }
  const Tensor il = input_lengths.to(at::kCPU, at::kLong).contiguous();
  const Tensor tl = target_lengths.to(at::kCPU, at::kLong).contiguous();
  return lengths_fit({il.const_data_ptr<int64_t>(), static_cast<size_t>(il.numel())},
                     {tl.const_data_ptr<int64_t>(), static_cast<size_t>(tl.numel())});
}

bool _use_miopen_ctc_loss(const Tensor& /*log_probs*/, const Tensor& /*targets*/, IntArrayRef /*input_lengths*/,
                          IntArrayRef /*target_lengths*/, int64_t /*blank*/) {
  return false;
}

bool _use_miopen_ctc_loss_tensor(const Tensor& /*log_probs*/, const Tensor& /*targets*/,
                                 const Tensor& /*input_lengths*/, const Tensor& /*target_lengths*/,
                                 int64_t /*blank*/) {
  return false;
}

}  // namespace at::native
