// cat, tril/triu and roll on any torch_core backend: stock's CUDA kernels (cat_out_cuda,
// tril_cuda, triu_cuda, roll_cuda) defined over copies, where and comparisons.
#include <ATen/TensorMeta.h>
#include <ATen/TensorOperators.h>
#include <ATen/native/TensorTransformations.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/cat_native.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/roll_native.h>
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

// One dimension: out[i] = self[(i + start) % size], as two slice copies; several
// dimensions, or none (the flattened tensor), go through stock's roll_common.
Tensor roll_cuda(const Tensor& self, IntArrayRef shifts, IntArrayRef dims) {
  if (dims.size() != 1 || shifts.size() != 1) return roll_common(self, shifts, dims);
  const Tensor in = self.contiguous();
  Tensor out = at::empty_like(in, LEGACY_CONTIGUOUS_MEMORY_FORMAT);
  if (out.numel() == 0) return out;
  const int64_t dim = dims[0];
  const int64_t size = in.size(dim);
  int64_t start = (size - shifts[0]) % size;
  if (start < 0) start += size;
  out.narrow(dim, 0, size - start).copy_(in.narrow(dim, start, size - start));
  out.narrow(dim, size - start, start).copy_(in.narrow(dim, 0, start));
  return out;
}

}  // namespace at::native
