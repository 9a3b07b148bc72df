// unfold_backward_stub's kernel: the gradient of Tensor.unfold(dim, size, step) (stock's
// device-generic unfold_backward zeroes grad_in and calls it for overlapping windows;
// torch.istft's overlap-add is one). Each window's gradient is added back where the window
// read, as strided in-place adds over device operators: one per window or one per window
// position, whichever is fewer.
#include <algorithm>
#include <cstdint>

#include <ATen/core/Tensor.h>
#include <ATen/native/UnfoldBackward.h>
#include <c10/core/WrapDimMinimal.h>

#include "torch_core/csrc/aten/engine/stub_kernels.h"
#include "torch_core/csrc/aten/engine/stub_slot.h"

namespace torch_core::engine {

namespace {

// grad_in: the unfolded tensor's shape (zeros); grad: grad_in's shape with `dim` holding the
// windows and a last dimension of `size`.
void unfold_backward_kernel(at::Tensor& grad_in, const at::Tensor& grad, int64_t dim, int64_t size, int64_t step) {
  dim = c10::maybe_wrap_dim(dim, grad_in.dim(), /*wrap_scalar=*/true);
  if (grad.numel() == 0) return;
  const int64_t windows = grad_in.dim() == 0 ? 1 : grad.size(dim);
  if (grad_in.dim() == 0) {
    grad_in.add_(grad.reshape({}));
    return;
  }
  if (windows <= size) {
    for (int64_t w = 0; w < windows; ++w) {
      grad_in.narrow(dim, w * step, size).add_(grad.select(dim, w).movedim(-1, dim));
    }
    return;
  }
  // Position j of every window: elements j, j + step, ... of grad_in along `dim`.
  const int64_t span = (windows - 1) * step + 1;
  for (int64_t j = 0; j < size; ++j) {
    grad_in.narrow(dim, j, span).slice(dim, 0, span, step).add_(grad.select(-1, j));
  }
}

}  // namespace

void fill_unfold_backward_stub(c10::DeviceType t) {
  set_slot(at::native::unfold_backward_stub, t, &unfold_backward_kernel);
}

}  // namespace torch_core::engine
