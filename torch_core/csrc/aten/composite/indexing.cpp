// index_select, embedding's backward and masked_fill_ on any torch_core backend: stock's
// CUDA kernels (index_select_cuda, embedding_dense_backward_cuda, masked_fill__cuda)
// defined over advanced indexing (the kernel engine's index kernels) and where.
#include <optional>
#include <vector>

#include <ATen/TensorOperators.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/embedding_dense_backward_native.h>
#include <ATen/ops/index.h>
#include <ATen/ops/index_put.h>
#include <ATen/ops/index_select_native.h>
#include <ATen/ops/masked_fill_native.h>
#include <ATen/ops/ones_like.h>
#include <ATen/ops/scalar_tensor.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros.h>
#include <c10/core/WrapDimMinimal.h>
#include <c10/util/Exception.h>

namespace at::native {

namespace {

// self[:, ..., index] along `dim`, as advanced indexing with one index tensor.
Tensor select_along(const Tensor& self, int64_t dim, const Tensor& index) {
  TORCH_CHECK_INDEX(index.dim() <= 1, "index_select(): Index is supposed to be a vector");
  TORCH_CHECK(index.scalar_type() == kLong || index.scalar_type() == kInt,
              "index_select(): Expected dtype int32 or int64 for index");
  if (self.dim() == 0) {
    TORCH_CHECK_INDEX(index.numel() == 1, "index_select(): Index to scalar can have only 1 value, got ",
                      index.numel(), " value(s)");
    return at::index(self.unsqueeze(0), {std::optional<Tensor>(index.reshape({-1}))}).squeeze(0);
  }
  c10::List<std::optional<Tensor>> indices;
  for (int64_t d = 0; d < dim; ++d) indices.push_back(std::nullopt);
  indices.push_back(index.reshape({-1}));
  return at::index(self, indices);
}

}  // namespace

Tensor index_select_cuda(const Tensor& self, int64_t dim, const Tensor& index) {
  return select_along(self, c10::maybe_wrap_dim(dim, self.dim()), index);
}

Tensor& index_select_out_cuda(const Tensor& self, int64_t dim, const Tensor& index, Tensor& out) {
  const Tensor result = index_select_cuda(self, dim, index);
  at::native::resize_output(out, result.sizes());
  out.copy_(result);
  return out;
}

Tensor embedding_dense_backward_cuda(const Tensor& grad_output, const Tensor& indices, int64_t num_weights,
                                     int64_t padding_idx, bool scale_grad_by_freq) {
  const int64_t width = grad_output.size(-1);
  const Tensor flat = indices.reshape({-1});
  Tensor grad = grad_output.reshape({-1, width});
  // The padding row gets no gradient.
  if (padding_idx >= 0) grad = grad * (flat != padding_idx).unsqueeze(1).to(grad.scalar_type());
  if (scale_grad_by_freq) {
    Tensor counts = at::zeros({num_weights}, flat.options());
    counts = at::index_put(counts, {std::optional<Tensor>(flat)}, at::ones_like(flat), /*accumulate=*/true);
    grad = grad / at::index(counts, {std::optional<Tensor>(flat)}).unsqueeze(1).to(grad.scalar_type());
  }
  const Tensor zeros = at::zeros({num_weights, width}, grad_output.options());
  return at::index_put(zeros, {std::optional<Tensor>(flat)}, grad, /*accumulate=*/true);
}

Tensor& masked_fill__cuda(Tensor& self, const Tensor& mask, const Tensor& value) {
  TORCH_CHECK(mask.scalar_type() == kBool,
              "masked_fill_ only supports boolean masks, but got mask with dtype ", mask.scalar_type());
  TORCH_CHECK(value.dim() == 0, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s).");
  const Tensor fill = value.to(self.options());
  self.copy_(at::where(mask, fill, self));
  return self;
}

Tensor& masked_fill__cuda(Tensor& self, const Tensor& mask, const Scalar& value) {
  return masked_fill__cuda(self, mask, at::scalar_tensor(value, self.options().device(kCPU)));
}

}  // namespace at::native
