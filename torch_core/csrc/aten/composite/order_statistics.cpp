// kthvalue, median and nanmedian on any torch_core backend: stock's CUDA kernels
// (kthvalue_out_cuda, median_cuda, median_out_cuda, nanmedian_cuda, nanmedian_out_cuda),
// which sort each slice, as a stable sort along `dim` (sort_stub's kernel on the engine)
// and a gather of each slice's answer. NaN sorts above every number: median returns the
// first NaN of a slice that has one, nanmedian the median of the numbers (NaN when there
// are none), as stock does.
#include <vector>

#include <ATen/MemoryOverlap.h>
#include <ATen/WrapDimUtils.h>
#include <ATen/core/Tensor.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/clamp_min.h>
#include <ATen/ops/full.h>
#include <ATen/ops/gather.h>
#include <ATen/ops/isnan.h>
#include <ATen/ops/kthvalue_native.h>
#include <ATen/ops/median_native.h>
#include <ATen/ops/nanmedian_native.h>
#include <ATen/ops/sort.h>
#include <ATen/ops/where.h>
#include <c10/core/DeviceType.h>
#include <c10/util/Exception.h>

namespace at::native {

namespace {

// Stock's CUDA kernels index a slice's tensor through TensorInfo, which refuses 25
// dimensions or more (with a message that says "more than 25").
constexpr int64_t kMaxDims = 25;

void check_dims(const Tensor& self) {
  TORCH_CHECK(self.dim() < kMaxDims, c10::DeviceTypeName(self.device().type()), " Tensors cannot have more than ",
              kMaxDims, " dimensions");
}

// Stock's check that a reduction dimension has elements (ReduceOpsUtils' zero_numel_check_dims).
void check_nonempty_dim(const Tensor& self, int64_t dim, const char* name) {
  if (self.dim() == 0) {
    TORCH_CHECK_INDEX(dim == 0 || dim == -1, name, ": Expected reduction dim -1 or 0 for scalar but got ", dim);
  } else {
    TORCH_CHECK_INDEX(self.size(dim) != 0, name, ": Expected reduction dim ", dim, " to have non-zero size.");
  }
}

// Sizes values and indices as self with `dim` kept at 1 (stock's
// _reduction_with_indices_allocate_or_resize_output; a squeezed out= tensor is unsqueezed
// first so that its strides survive).
void resize_keepdim_outputs(Tensor& values, Tensor& indices, const Tensor& self, int64_t dim, bool keepdim) {
  TORCH_CHECK(self.options().type_equal(values.options()), "output values must be of same type as input");
  TORCH_CHECK(indices.dtype() == kLong, "output indices must be of scalar type Long");
  TORCH_CHECK(indices.device() == self.device(), "output indices must be on same device as input");
  std::vector<int64_t> sizes = self.sizes().vec();
  if (!sizes.empty()) sizes[dim] = 1;
  for (Tensor* out : {&values, &indices}) {
    if (!keepdim && out->dim() == self.dim() - 1) out->unsqueeze_(dim);
    resize_output(*out, sizes);
  }
}

// Writes the entry at `position` (int64, keepdim shape: one per slice) of each sorted slice
// of self along dim, and its index in self, into the keepdim-sized outputs.
void select_sorted(const Tensor& sorted, const Tensor& order, int64_t dim, const Tensor& position, Tensor& values,
                   Tensor& indices) {
  values.copy_(at::gather(sorted, dim, position).view(values.sizes()));
  indices.copy_(at::gather(order, dim, position).view(indices.sizes()));
}

void squeeze_outputs(Tensor& values, Tensor& indices, const Tensor& self, int64_t dim, bool keepdim) {
  if (!keepdim && self.dim() > 0) {
    values.squeeze_(dim);
    indices.squeeze_(dim);
  }
}

// The median's position in each sorted slice (keepdim shape).
Tensor median_position(const Tensor& sorted, int64_t dim, bool ignore_nan) {
  const int64_t size = sorted.size(dim);
  const Tensor nans = at::isnan(sorted).sum(dim, /*keepdim=*/true);
  const Tensor numbers = nans.neg().add(size);  // the entries that are not NaN
  if (ignore_nan) return at::clamp_min(numbers.sub(1), 0).div(2, "floor");
  // The first NaN (numbers is its position) where there is one, the middle otherwise.
  return at::where(nans.gt(0), numbers, at::full_like(numbers, (size - 1) / 2));
}

std::tuple<Tensor&, Tensor&> median_with_indices(const Tensor& self, int64_t dim, bool keepdim, Tensor& values,
                                                 Tensor& indices, bool ignore_nan, const char* name) {
  check_dims(self);
  dim = maybe_wrap_dim(dim, self.dim());
  check_nonempty_dim(self, dim, name);
  resize_keepdim_outputs(values, indices, self, dim, keepdim);
  const Tensor input = self.dim() > 0 ? self : self.unsqueeze(0);
  const auto [sorted, order] = at::sort(input, /*stable=*/true, dim, /*descending=*/false);
  const Tensor position = median_position(sorted, dim, ignore_nan);
  select_sorted(sorted, order, dim, self.dim() > 0 ? position : position.view({1}), values, indices);
  squeeze_outputs(values, indices, self, dim, keepdim);
  return {values, indices};
}

Tensor median_of_all(const Tensor& self, bool ignore_nan) {
  if (self.numel() == 0) return at::full({}, std::numeric_limits<float>::quiet_NaN()).to(self.options());
  const auto [sorted, order] = at::sort(self.reshape({-1}), /*stable=*/true, 0, /*descending=*/false);
  return at::gather(sorted, 0, median_position(sorted, 0, ignore_nan)).squeeze(0);
}

}  // namespace

std::tuple<Tensor&, Tensor&> kthvalue_out_cuda(const Tensor& self, int64_t k, int64_t dim, bool keepdim,
                                               Tensor& values, Tensor& indices) {
  check_dims(self);
  dim = maybe_wrap_dim(dim, self.dim());
  const int64_t slice_size = self.dim() == 0 ? 1 : self.size(dim);
  check_nonempty_dim(self, dim, "kthvalue()");
  TORCH_CHECK(k >= 1 && k <= slice_size, "kthvalue(): selected number k out of range for dimension ", dim);
  at::assert_no_overlap(self, values);
  resize_keepdim_outputs(values, indices, self, dim, keepdim);
  const Tensor input = self.dim() > 0 ? self : self.unsqueeze(0);
  const auto [sorted, order] = at::sort(input, /*stable=*/true, dim, /*descending=*/false);
  const Tensor position = at::full_like(values.dim() > 0 ? values : values.view({1}), k - 1,
                                        values.options().dtype(kLong));
  select_sorted(sorted, order, dim, position, values, indices);
  squeeze_outputs(values, indices, self, dim, keepdim);
  return {values, indices};
}

Tensor median_cuda(const Tensor& self) { return median_of_all(self, /*ignore_nan=*/false); }

Tensor nanmedian_cuda(const Tensor& self) { return median_of_all(self, /*ignore_nan=*/true); }

std::tuple<Tensor&, Tensor&> median_out_cuda(const Tensor& self, int64_t dim, bool keepdim, Tensor& values,
                                             Tensor& indices) {
  return median_with_indices(self, dim, keepdim, values, indices, /*ignore_nan=*/false, "median()");
}

std::tuple<Tensor&, Tensor&> nanmedian_out_cuda(const Tensor& self, int64_t dim, bool keepdim, Tensor& values,
                                                Tensor& indices) {
  return median_with_indices(self, dim, keepdim, values, indices, /*ignore_nan=*/true, "nanmedian()");
}

}  // namespace at::native
