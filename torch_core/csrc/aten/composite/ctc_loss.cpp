// Whether ctc_loss takes cuDNN's or MIOpen's path: _use_cudnn_ctc_loss and
// _use_miopen_ctc_loss, which stock dispatches for CUDA only (the CPU fallback would insist
// that the lengths, host tensors by design, share the log-probabilities' device).
// torch_core's backends have neither library's CTC, so the answer is no, as a stock build
// without them gives: ctc_loss then runs _ctc_loss.
#include <ATen/core/Tensor.h>
#include <ATen/ops/_use_cudnn_ctc_loss_native.h>
#include <ATen/ops/_use_miopen_ctc_loss_native.h>

namespace at::native {

bool _use_cudnn_ctc_loss(const Tensor& /*log_probs*/, const Tensor& /*targets*/, IntArrayRef /*input_lengths*/,
                         IntArrayRef /*target_lengths*/, int64_t /*blank*/) {
  return false;
}

bool _use_cudnn_ctc_loss_tensor(const Tensor& /*log_probs*/, const Tensor& /*targets*/,
                                const Tensor& /*input_lengths*/, const Tensor& /*target_lengths*/,
                                int64_t /*blank*/) {
  return false;
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
