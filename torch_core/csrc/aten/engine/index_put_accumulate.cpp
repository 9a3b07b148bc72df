// index_put_ with accumulate=True on the CUDA key. There stock's _index_put_impl_ calls
// index_put_with_sort_stub (CUDA's deterministic sort-based kernel) rather than
// index_put_stub, with the raw index list; the iterator that index_put_stub would get is
// built here as stock's make_info / AdvancedIndex / make_index_put_iterator build it (they
// are not exported from libtorch), then run by the engine's accumulating index kernel.
#include <tuple>
#include <vector>

#include <ATen/ExpandUtils.h>
#include <ATen/TensorIterator.h>
#include <ATen/core/List.h>
#include <ATen/native/IndexingUtils.h>
#include <ATen/ops/_to_copy.h>
#include <c10/util/Exception.h>

#include "torch_core/csrc/aten/engine/stub_kernels.h"

namespace torch_core::engine {

namespace {

struct Indexing {
  at::Tensor src;  // restrided: stride 0 along the indexed dimensions
  std::vector<at::Tensor> indices;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;  // bytes
};

Indexing advanced_index(at::Tensor self, const c10::List<std::optional<at::Tensor>>& list) {
  at::native::checkIndexTensorTypes(list, /*allow_int=*/true);
  std::vector<at::Tensor> indices = at::native::expandTensors(self, list, /*ensure_same_device=*/true);
  try {
    indices = at::expand_outplace(indices);
  } catch (std::exception&) {
    TORCH_CHECK_INDEX(false, "shape mismatch: indexing tensors could not be broadcast together");
  }
  while (indices.size() < static_cast<std::size_t>(self.dim())) indices.emplace_back();
  if (!at::native::hasContiguousSubspace(indices)) std::tie(self, indices) = at::native::transposeToFront(self, indices);
  Indexing result;
  int64_t dims_before = 0, dims_after = 0, dims_indexed = 0;
  at::IntArrayRef replacement_shape;
  for (int64_t dim = 0; dim < self.dim(); ++dim) {
    const at::Tensor& index = indices[static_cast<std::size_t>(dim)];
    if (!index.defined()) {
      (dims_indexed == 0 ? dims_before : dims_after) += 1;
      continue;
    }
    ++dims_indexed;
    replacement_shape = index.sizes();
    result.sizes.push_back(self.size(dim));
    result.strides.push_back(self.stride(dim) * static_cast<int64_t>(self.element_size()));
  }
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().begin() + dims_before);
  std::vector<int64_t> strides(self.strides().begin(), self.strides().begin() + dims_before);
  shape.insert(shape.end(), replacement_shape.begin(), replacement_shape.end());
  strides.insert(strides.end(), replacement_shape.size(), 0);
  shape.insert(shape.end(), self.sizes().end() - dims_after, self.sizes().end());
  strides.insert(strides.end(), self.strides().end() - dims_after, self.strides().end());
  result.src = self.as_strided(shape, strides);
  for (at::Tensor& index : indices) {
    if (!index.defined()) continue;
    std::vector<int64_t> view(static_cast<std::size_t>(dims_before), 1);
    view.insert(view.end(), index.sizes().begin(), index.sizes().end());
    view.insert(view.end(), static_cast<std::size_t>(dims_after), 1);
    const at::Tensor as_long = index.scalar_type() == at::kInt ? at::_to_copy(index, index.options().dtype(at::kLong))
                                                               : index;
    result.indices.push_back(as_long.view(view));
  }
  return result;
}

}  // namespace

void index_put_with_sort_kernel(at::Tensor& self, const c10::List<std::optional<at::Tensor>>& list,
                                const at::Tensor& value, bool accumulate, bool) {
  const Indexing info = advanced_index(self, list);
  TORCH_CHECK(at::is_expandable_to(value.sizes(), info.src.sizes()), "shape mismatch: value tensor of shape ",
              value.sizes(), " cannot be broadcast to indexing result of shape ", info.src.sizes());
  TORCH_CHECK(value.scalar_type() == info.src.scalar_type(),
              "Index put requires the source and destination dtypes match, got ", info.src.scalar_type(),
              " for the destination and ", value.scalar_type(), " for the source.");
  at::TensorIteratorConfig config;
  config.set_check_mem_overlap(false);
  config.resize_outputs(false);
  config.check_all_same_dtype(false);
  config.add_output(info.src);
  config.add_const_input(value);
  for (const at::Tensor& index : info.indices) config.add_const_input(index);
  at::TensorIterator iter = config.build();
  run_index(iter, accumulate ? IndexKind::kAccumulate : IndexKind::kPut, info.sizes, info.strides);
}

}  // namespace torch_core::engine
