// index_select, embedding's backward and masked_fill_ on any torch_core backend: stock's
// CUDA kernels (index_select_cuda, embedding_dense_backward_cuda, masked_fill__cuda)
// defined over advanced indexing (the kernel engine's index kernels) and where, with stock's
// checks.
#include <optional>
#include <vector>

#include <ATen/Dispatch_v2.h>
#include <ATen/ExpandUtils.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/TensorOperators.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/embedding_dense_backward_native.h>
#include <ATen/ops/index.h>
#include <ATen/ops/index_put.h>
#include <ATen/ops/index_select_native.h>
#include <ATen/ops/masked_fill_native.h>
#include <ATen/ops/masked_scatter_native.h>
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
  at::assert_no_internal_overlap(out);
  at::assert_no_overlap(out, self);
  at::assert_no_overlap(out, index);
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

// Stock's checks (devices, mask dtype, overlap, the value fitting self's dtype), then
// where() over the mask broadcast to self.
Tensor& masked_fill__cuda(Tensor& self, const Tensor& mask, const Scalar& value) {
  TORCH_CHECK(!self.device().is_cpu(), "masked_fill_: Expected inputs to be on same device");
  TORCH_CHECK(self.device() == mask.device(), "expected self and mask to be on the same device, but got mask on ",
              mask.device(), " and self on ", self.device());
  TORCH_CHECK(mask.scalar_type() == kBool, "masked_fill only supports boolean masks, but got dtype ",
              mask.scalar_type());
  at::assert_no_partial_overlap(self, mask);
  AT_DISPATCH_V2(self.scalar_type(), "masked_fill_", AT_WRAP([&] { (void)value.to<scalar_t>(); }),
                 AT_EXPAND(AT_ALL_TYPES_AND_COMPLEX), kBool, kHalf, kBFloat16, kComplexHalf,
                 AT_EXPAND(AT_FLOAT8_TYPES), AT_EXPAND(AT_BAREBONES_UNSIGNED_TYPES));
  const c10::MaybeOwned<Tensor> expanded_mask = expand_inplace(self, mask, "masked_fill_");
  const Tensor fill = at::scalar_tensor(value, self.options());
  self.copy_(at::where(*expanded_mask, fill, self));
  return self;
}

// Stock reads a device value tensor's element on the host first (a synchronisation). This
// kernel runs when any argument is on the device: a CPU value is fine, a CPU self is not.
Tensor& masked_fill__cuda(Tensor& self, const Tensor& mask, const Tensor& value) {
  TORCH_CHECK(value.dim() == 0, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s).");
  TORCH_CHECK(!self.device().is_cpu(), "masked_fill_: Expected inputs to be on same device");
  return masked_fill__cuda(self, mask, value.item());
}

// Stock's checks; then the masked elements, in order, take source's first elements (the
// count is read on the host, as index_put_ with a mask reads it anyway).
Tensor& masked_scatter__cuda(Tensor& self, const Tensor& mask, const Tensor& source) {
  at::assert_no_internal_overlap(self);
  TORCH_CHECK(self.scalar_type() == source.scalar_type(),
              "masked_scatter_: expected self and source to have same dtypes but got", self.scalar_type(), " and ",
              source.scalar_type());
  TORCH_CHECK(mask.dtype() == ScalarType::Bool, "masked_scatter_ only supports boolean masks, but got mask with dtype ",
              mask.dtype());
  const c10::MaybeOwned<Tensor> expanded_mask = expand_inplace(self, mask, "masked_scatter_");
  if (self.numel() == 0) return self;
  const int64_t count = expanded_mask->sum().item<int64_t>();
  TORCH_CHECK(count <= source.numel(), "Number of elements of source < number of ones in mask");
  self.index_put_({std::optional<Tensor>(*expanded_mask)}, source.reshape({-1}).narrow(0, 0, count));
  return self;
}

}  // namespace at::native
