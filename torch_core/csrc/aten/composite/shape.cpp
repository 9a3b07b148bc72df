// cat, tril/triu and arange on any torch_core backend: stock's CUDA kernels (cat_out_cuda,
// tril_cuda, triu_cuda, arange_cuda_out) defined over copies, where and comparisons.
// arange's values are computed by the CPU's arange (its size and bound checks are
// stock's) and copied to the device: a host-made factory, not a fallback.
#include <ATen/TensorMeta.h>
#include <ATen/TensorOperators.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/arange_native.h>
#include <ATen/ops/cat_native.h>
#include <ATen/ops/scalar_tensor.h>
#include <ATen/ops/tril_native.h>
#include <ATen/ops/triu_native.h>
#include <ATen/ops/where.h>
#include <c10/core/WrapDimMinimal.h>

namespace at::native {

namespace {

// The kept part of a matrix batch: col - row <= diagonal (lower) or >= diagonal (upper).
Tensor triangle(const Tensor& self, int64_t diagonal, bool lower) {
  const TensorOptions index_options = self.options().dtype(kLong).device(kCPU);
  const Tensor rows = at::arange(self.size(-2), index_options).unsqueeze(-1).to(self.device());
  const Tensor cols = at::arange(self.size(-1), index_options).to(self.device());
  const Tensor offset = cols - rows;
  const Tensor keep = lower ? offset <= diagonal : offset >= diagonal;
  return at::where(keep, self, at::scalar_tensor(0, self.options().device(kCPU)));
}

}  // namespace

TORCH_IMPL_FUNC(tril_cuda)(const Tensor& self, int64_t diagonal, const Tensor& out) {
  if (self.numel() == 0) return;
  out.copy_(triangle(self, diagonal, /*lower=*/true));
}

TORCH_IMPL_FUNC(triu_cuda)(const Tensor& self, int64_t diagonal, const Tensor& out) {
  if (self.numel() == 0) return;
  out.copy_(triangle(self, diagonal, /*lower=*/false));
}

TORCH_IMPL_FUNC(cat_out_cuda)
(const ITensorListRef& tensors, int64_t dim, int64_t, bool, bool, bool, MemoryFormat, const Tensor& out) {
  if (out.numel() == 0) return;
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    // Legacy: 1-d empty tensors are skipped whatever the other inputs' shapes.
    if (t.dim() == 1 && t.size(0) == 0) continue;
    const int64_t length = t.size(dim);
    out.narrow(dim, offset, length).copy_(t);
    offset += length;
  }
}

Tensor& arange_cuda_out(const Scalar& start, const Scalar& end, const Scalar& step, Tensor& out) {
  const Tensor values = at::arange(start, end, step, out.options().device(kCPU));
  at::native::resize_output(out, values.sizes());
  out.copy_(values);
  return out;
}

}  // namespace at::native
