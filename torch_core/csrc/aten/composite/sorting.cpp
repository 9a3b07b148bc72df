// topk on any torch_core backend: stock's CUDA structured kernel topk_out_cuda (the meta
// function has checked k and sized the outputs) as a stable sort along `dim` (sort_stub's
// kernel on the engine) whose first k entries are the answer. NaN counts as the largest
// value, as in stock. With sorted=False stock leaves the order unspecified; this gives
// the sorted one.
#include <ATen/TensorMeta.h>
#include <ATen/WrapDimUtils.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/sort.h>
#include <ATen/ops/topk_native.h>

namespace at::native {

TORCH_IMPL_FUNC(topk_out_cuda)
(const Tensor& self, int64_t k, int64_t dim, bool largest, bool /*sorted*/, const Tensor& values,
 const Tensor& indices) {
  if (k == 0) return;
  if (self.dim() == 0) {
    values.copy_(self);
    indices.zero_();
    return;
  }
  dim = maybe_wrap_dim(dim, self.dim());
  const auto [sorted_values, sorted_indices] = at::sort(self, /*stable=*/true, dim, /*descending=*/largest);
  values.copy_(sorted_values.narrow(dim, 0, k));
  indices.copy_(sorted_indices.narrow(dim, 0, k));
}

}  // namespace at::native
