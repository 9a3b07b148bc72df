// gather_stub, scatter_stub, scatter_fill_stub and scatter_add_stub: stock's structured
// gather/scatter (their meta functions check dtypes and shapes) call these; the kernels
// build stock's CUDA iterator (ScatterGatherKernel.cu): destination, source and index
// over the index's shape, the indexed side restrided with stride 0 along `dim`, and run
// it as a one-index advanced-indexing call, with stock's own restriding helpers. Indices are not wrapped: a negative one is
// out of bounds, as in stock's kernels.
#include <cstdint>
#include <vector>

#include <ATen/TensorIterator.h>
#include <ATen/WrapDimUtils.h>
#include <ATen/core/Tensor.h>
#include <ATen/native/ReduceOpsUtils.h>
#include <ATen/native/TensorAdvancedIndexing.h>
#include <ATen/ops/scalar_tensor.h>

#include "torch_core/csrc/aten/engine/stub_kernels.h"
#include "torch_core/csrc/aten/engine/stub_slot.h"

namespace torch_core::engine {

namespace {

// Stock's helpers (ReduceOpsUtils.h, which brings NonEmptyUtils.h: that header has no
// include guard of its own).
using at::native::ensure_nonempty_size;
using at::native::ensure_nonempty_stride;
using at::native::ensure_nonempty_vec;
using at::native::restride_dim;

// `scatter_like`: `self` is indexed (written at index positions, from src); otherwise
// `src` is (read at index positions into self).
void scatter_gather(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& src,
                    bool scatter_like, IndexKind kind) {
  if (index.numel() == 0) return;
  dim = at::maybe_wrap_dim(dim, self.dim());
  const std::vector<int64_t> shape = ensure_nonempty_vec(index.sizes().vec());
  const at::Tensor self_restrided =
      scatter_like ? restride_dim(self, dim, shape) : self.as_strided(shape, ensure_nonempty_vec(self.strides().vec()));
  const at::Tensor src_restrided =
      !scatter_like ? restride_dim(src, dim, shape)
      : src.dim() == 0 ? src  // a scalar value (scatter_fill): broadcast
                       : src.as_strided(shape, ensure_nonempty_vec(src.strides().vec()));
  auto iter = at::TensorIteratorConfig()
                  .set_check_mem_overlap(false)
                  .check_all_same_dtype(false)
                  .resize_outputs(false)
                  .add_output(self_restrided)
                  .add_const_input(src_restrided)
                  .add_const_input(index)
                  .build();
  const at::Tensor& indexed = scatter_like ? self : src;
  const int64_t size = ensure_nonempty_size(indexed, dim);
  const int64_t stride = ensure_nonempty_stride(indexed, dim) * static_cast<int64_t>(indexed.element_size());
  run_index(iter, kind, {size}, {stride}, /*wrap_negative=*/false);
}

void gather_kernel(const at::Tensor& result, const at::Tensor& self, int64_t dim, const at::Tensor& index) {
  scatter_gather(result, dim, index, self, /*scatter_like=*/false, IndexKind::kGather);
}

void scatter_kernel(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& src) {
  scatter_gather(self, dim, index, src, /*scatter_like=*/true, IndexKind::kPut);
}

void scatter_fill_kernel(const at::Tensor& self, int64_t dim, const at::Tensor& index, const c10::Scalar& value) {
  // The value as a one-element device tensor of self's dtype, which the iterator broadcasts.
  const at::Tensor src = at::scalar_tensor(value, self.options());
  scatter_gather(self, dim, index, src, /*scatter_like=*/true, IndexKind::kPut);
}

void scatter_add_kernel(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& src) {
  scatter_gather(self, dim, index, src, /*scatter_like=*/true, IndexKind::kAccumulate);
}

}  // namespace

void fill_scatter_gather_stubs(c10::DeviceType t) {
  namespace native = at::native;
  set_slot(native::gather_stub, t, &gather_kernel);
  set_slot(native::scatter_stub, t, &scatter_kernel);
  set_slot(native::scatter_fill_stub, t, &scatter_fill_kernel);
  set_slot(native::scatter_add_stub, t, &scatter_add_kernel);
}

}  // namespace torch_core::engine
