#include "torch_core/csrc/aten/sparse_registration.h"

#include <tuple>

#include <ATen/core/Tensor.h>
#include <ATen/ops/_coalesced_native.h>
#include <ATen/ops/_copy_from_and_resize_native.h>
#include <ATen/ops/_indices_native.h>
#include <ATen/ops/_nnz_native.h>
#include <ATen/ops/_sparse_coo_tensor_with_dims_and_tensors_native.h>
#include <ATen/ops/_sparse_coo_tensor_with_dims_native.h>
#include <ATen/ops/_sparse_mm_reduce_impl.h>
#include <ATen/ops/_to_dense_native.h>
#include <ATen/ops/_to_sparse_bsc_native.h>
#include <ATen/ops/_to_sparse_bsr_native.h>
#include <ATen/ops/_to_sparse_csc_native.h>
#include <ATen/ops/_to_sparse_csr_native.h>
#include <ATen/ops/_to_sparse_native.h>
#include <ATen/ops/_values_native.h>
#include <ATen/ops/ccol_indices_native.h>
#include <ATen/ops/clone_native.h>
#include <ATen/ops/col_indices_native.h>
#include <ATen/ops/copy_native.h>
#include <ATen/ops/copy_sparse_to_sparse_native.h>
#include <ATen/ops/crow_indices_native.h>
#include <ATen/ops/dense_dim_native.h>
#include <ATen/ops/empty_like_native.h>
#include <ATen/ops/empty_native.h>
#include <ATen/ops/indices_native.h>
#include <ATen/ops/is_coalesced_native.h>
#include <ATen/ops/resize_as_sparse_native.h>
#include <ATen/ops/resize_native.h>
#include <ATen/ops/row_indices_native.h>
#include <ATen/ops/sparse_dim_native.h>
#include <ATen/ops/sparse_resize_and_clear_native.h>
#include <ATen/ops/sparse_resize_native.h>
#include <ATen/ops/values_native.h>
#include <ATen/ops/zero_native.h>
#include <c10/util/Exception.h>

namespace torch_core {
namespace {

// What the CPU fallback calls to write a host result back into a sparse device argument.
at::Tensor copy_from_and_resize_sparse(const at::Tensor& self, const at::Tensor& dst) {
  TORCH_CHECK(self.layout() == dst.layout(), "_copy_from_and_resize: a sparse tensor copies only into one of its "
              "layout, not ", self.layout(), " into ", dst.layout());
  at::Tensor target = dst;
  if (dst.is_sparse()) return at::native::copy_sparse_(target, self);
  at::native::resize_as_sparse_compressed_(target, self);
  return at::native::copy_sparse_compressed_(target, self, /*non_blocking=*/false);
}

// torch.sparse.mm(csr, dense, reduce) on the CPU's kernel, with the inputs' requires_grad
// carried over: the CPU kernel computes the argmax/argmin indices its backward reads only
// for inputs that require grad, and the fallback's host copies do not (its backward then
// read an empty index tensor and crashed).
std::tuple<at::Tensor, at::Tensor> sparse_mm_reduce_on_cpu(const at::Tensor& self, const at::Tensor& other,
                                                           c10::string_view reduce) {
  const auto to_cpu = [](const at::Tensor& t) {
    at::Tensor copy = t.cpu();
    if (t.requires_grad()) copy.requires_grad_();
    return copy;
  };
  auto [out, arg_out] = at::_sparse_mm_reduce_impl(to_cpu(self), to_cpu(other), reduce);
  return {out.to(self.device()), arg_out.to(self.device())};
}

}  // namespace

void register_sparse_coo_ops(torch::Library& m) {
  m.impl("_sparse_coo_tensor_with_dims_and_tensors", TORCH_FN(at::native::new_with_dims_and_tensor_sparse_symint));
  m.impl("_sparse_coo_tensor_with_dims", TORCH_FN(at::native::new_with_dims_sparse));
  m.impl("empty.memory_format", TORCH_FN(at::native::empty_sparse));
  m.impl("sparse_resize_", TORCH_FN(at::native::sparse_resize_));
  m.impl("sparse_resize_and_clear_", TORCH_FN(at::native::sparse_resize_and_clear_));
  m.impl("resize_as_sparse_", TORCH_FN(at::native::resize_as_sparse_));
  m.impl("sparse_dim", TORCH_FN(at::native::sparse_dim_sparse));
  m.impl("_dimI", TORCH_FN(at::native::sparse_dim_sparse));
  m.impl("dense_dim", TORCH_FN(at::native::dense_dim_sparse));
  m.impl("_dimV", TORCH_FN(at::native::dense_dim_sparse));
  m.impl("_nnz", TORCH_FN(at::native::_nnz_sparse));
  m.impl("_indices", TORCH_FN(at::native::_indices_sparse));
  m.impl("_values", TORCH_FN(at::native::_values_sparse));
  m.impl("indices", TORCH_FN(at::native::indices_sparse));
  m.impl("values", TORCH_FN(at::native::values_sparse));
  m.impl("is_coalesced", TORCH_FN(at::native::is_coalesced_sparse));
  m.impl("_coalesced_", TORCH_FN(at::native::_coalesced_sparse_));
  m.impl("copy_", TORCH_FN(at::native::copy_sparse_wrapper_));
  m.impl("copy_sparse_to_sparse_", TORCH_FN(at::native::copy_sparse_));
  m.impl("_copy_from_and_resize", TORCH_FN(copy_from_and_resize_sparse));
  m.impl("_to_dense", TORCH_FN(at::native::sparse_to_dense));
  m.impl("clone", TORCH_FN(at::native::clone_sparse));
  m.impl("zero_", TORCH_FN(at::native::zero_sparse_));
}

void register_sparse_compressed_ops(torch::Library& m) {
  m.impl("empty.memory_format", TORCH_FN(at::native::empty_sparse_compressed));
  m.impl("empty_like", TORCH_FN(at::native::empty_like_sparse_csr));
  m.impl("resize_", TORCH_FN(at::native::resize_sparse_csr_));
  m.impl("resize_as_sparse_", TORCH_FN(at::native::resize_as_sparse_compressed_));
  m.impl("sparse_dim", TORCH_FN(at::native::sparse_dim_sparse_csr));
  m.impl("dense_dim", TORCH_FN(at::native::dense_dim_sparse_csr));
  m.impl("_nnz", TORCH_FN(at::native::_nnz_sparse_csr));
  m.impl("values", TORCH_FN(at::native::values_sparse_csr));
  m.impl("crow_indices", TORCH_FN(at::native::crow_indices_sparse_csr));
  m.impl("col_indices", TORCH_FN(at::native::col_indices_sparse_csr));
  m.impl("ccol_indices", TORCH_FN(at::native::ccol_indices_sparse_csr));
  m.impl("row_indices", TORCH_FN(at::native::row_indices_sparse_csr));
  m.impl("copy_", TORCH_FN(at::native::copy_sparse_compressed_));
  m.impl("_copy_from_and_resize", TORCH_FN(copy_from_and_resize_sparse));
  m.impl("clone", TORCH_FN(at::native::clone_sparse_compressed));
  m.impl("zero_", TORCH_FN(at::native::zero_sparse_csr_));
  m.impl("_to_dense", TORCH_FN(at::native::sparse_compressed_to_dense));
  m.impl("_to_sparse.sparse_dim", TORCH_FN(static_cast<at::Tensor (*)(const at::Tensor&, int64_t)>(
                                      &at::native::sparse_compressed_to_sparse)));
  m.impl("_to_sparse", TORCH_FN(static_cast<at::Tensor (*)(const at::Tensor&, std::optional<at::Layout>,
                                                         at::OptionalIntArrayRef, std::optional<int64_t>)>(
                           &at::native::sparse_compressed_to_sparse)));
  m.impl("_to_sparse_csr", TORCH_FN(at::native::sparse_compressed_to_sparse_csr));
  m.impl("_to_sparse_csc", TORCH_FN(at::native::sparse_compressed_to_sparse_csc));
  m.impl("_to_sparse_bsr", TORCH_FN(at::native::sparse_compressed_to_sparse_bsr));
  m.impl("_to_sparse_bsc", TORCH_FN(at::native::sparse_compressed_to_sparse_bsc));
  m.impl("_sparse_mm_reduce_impl", TORCH_FN(sparse_mm_reduce_on_cpu));
}

}  // namespace torch_core
