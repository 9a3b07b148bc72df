// nonzero and masked_select on any torch_core backend: stock's CUDA kernels nonzero_cuda
// and masked_select_cuda. nonzero counts the nonzero elements (one host read, as stock's
// kernel also makes), finds their flat positions in order with a stable sort of the mask
// (trues first), and turns positions into coordinates with engine arithmetic. Its result
// has stock CUDA's layout: (N, ndim) with strides (1, N). masked_select is stock's: advanced
// indexing with the broadcast mask, which goes through nonzero.
#include <limits>
#include <vector>

#include <ATen/ExpandUtils.h>
#include <ATen/core/List.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/div.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/index.h>
#include <ATen/ops/masked_select_native.h>
#include <ATen/ops/ne.h>
#include <ATen/ops/nonzero_native.h>
#include <ATen/ops/remainder.h>
#include <ATen/ops/full.h>
#include <ATen/ops/nonzero_static_native.h>
#include <ATen/ops/sort.h>
#include <ATen/ops/stack.h>

namespace at::native {

namespace {

constexpr int64_t kMaxNonzeroDims = 25;  // stock's MAX_DIMS for nonzero

// The coordinates of self's nonzero elements as a (ndim, N) contiguous tensor.
Tensor nonzero_coordinates(const Tensor& self) {
  const Tensor mask = self.ne(0).flatten();
  const int64_t count = mask.sum().item<int64_t>();
  const auto long_options = self.options().dtype(kLong);
  if (self.dim() == 0) return at::empty({0, count}, long_options);
  // Trues first, in position order: the stable sort keeps equal keys in place.
  Tensor flat = std::get<1>(at::sort(mask, /*stable=*/true, /*dim=*/0, /*descending=*/true)).narrow(0, 0, count);
  std::vector<Tensor> coordinates(self.dim());
  for (int64_t d = self.dim() - 1; d >= 0; --d) {
    const int64_t size = self.size(d);
    coordinates[d] = at::remainder(flat, size);
    flat = at::div(flat, size, "floor");
  }
  return at::stack(coordinates, 0);
}

}  // namespace

Tensor& nonzero_out_cuda(const Tensor& self, Tensor& out) {
  TORCH_CHECK(self.numel() < std::numeric_limits<int>::max(),
              "nonzero is not supported for tensors with more than INT_MAX elements, "
              "See https://github.com/pytorch/pytorch/issues/51871");
  TORCH_CHECK(out.dtype() == at::kLong, "Expected object of scalar type ", at::kLong, " as out, but got ",
              out.dtype());
  TORCH_CHECK(self.device() == out.device(), "expected self and out to be on the same device, but got out on ",
              out.device(), " and self on ", self.device());
  TORCH_CHECK(self.dim() <= kMaxNonzeroDims, "nonzero is not supported for tensor with more than ",
              kMaxNonzeroDims, " dimensions");
  const Tensor rows = nonzero_coordinates(self);
  const int64_t count = rows.size(1);
  // As stock: an `out` of the right shape keeps its layout; any other is resized to
  // (ndim, N) and handed back transposed.
  const bool keep_layout = out.dim() == 2 && out.size(0) == count && out.size(1) == self.dim() &&
                           !out.t().is_contiguous();
  if (keep_layout) {
    out.copy_(rows.t());
  } else {
    out.resize_({self.dim(), count});
    out.copy_(rows);
    out.set_(out.t());
  }
  return out;
}

Tensor nonzero_cuda(const Tensor& self) {
  Tensor out = at::empty({0}, self.options().dtype(kLong));
  return nonzero_out_cuda(self, out);
}

Tensor& masked_select_out_cuda(const Tensor& self, const Tensor& mask, Tensor& result) {
  TORCH_CHECK(self.scalar_type() == result.scalar_type(),
              "masked_select(): self and result must have the same scalar type");
  TORCH_CHECK(mask.scalar_type() == ScalarType::Bool, "masked_select: expected BoolTensor for mask");
  const Tensor mask_1d = mask.dim() == 0 ? mask.unsqueeze(0) : mask;
  const Tensor self_1d = self.dim() == 0 ? self.unsqueeze(0) : self;
  const auto expanded = expand_outplace(mask_1d, self_1d);
  at::index_out(result, *std::get<1>(expanded), c10::List<std::optional<Tensor>>({*std::get<0>(expanded)}));
  return result;
}

Tensor masked_select_cuda(const Tensor& self, const Tensor& mask) {
  Tensor result = at::empty({0}, self.options());
  return masked_select_out_cuda(self, mask, result);
}

// The first `size` nonzero coordinates, rows of fill_value after them.
Tensor& nonzero_static_out_cuda(const Tensor& self, int64_t size, int64_t fill_value, Tensor& out) {
  TORCH_CHECK(self.numel() < std::numeric_limits<int>::max(),
              "nonzero_static is not supported for tensors with more than INT_MAX elements, "
              "See https://github.com/pytorch/pytorch/issues/51871");
  TORCH_CHECK(out.dtype() == at::kLong, "nonzero_static: Expected out tensor to have scalar type ", at::kLong,
              " but got ", out.dtype());
  TORCH_CHECK(self.device() == out.device(), "expected self and out to be on the same device, but got out on ",
              out.device(), " and self on ", self.device());
  TORCH_CHECK(self.dim() <= kMaxNonzeroDims, "nonzero_static is not supported for tensor with more than ",
              kMaxNonzeroDims, " dimensions");
  TORCH_CHECK(size >= 0, "nonzero_static: 'size' must be an non-negative integer");
  const Tensor rows = nonzero_coordinates(self).t();
  const int64_t kept = std::min(size, rows.size(0));
  Tensor result = at::full({size, self.dim()}, fill_value, out.options());
  result.narrow(0, 0, kept).copy_(rows.narrow(0, 0, kept));
  out.resize_({size, self.dim()});
  out.copy_(result);
  return out;
}

Tensor nonzero_static_cuda(const Tensor& self, int64_t size, int64_t fill_value) {
  Tensor out = at::empty({0}, self.options().dtype(kLong));
  return nonzero_static_out_cuda(self, size, fill_value, out);
}

}  // namespace at::native
