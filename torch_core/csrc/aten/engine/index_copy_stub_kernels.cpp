// take_stub, put_stub, index_fill_stub and index_copy_stub: stock's device-generic take,
// put_, index_fill_ and index_copy (their checks, overlap tests and iterators) call these.
// Each is one advanced-indexing call of the kernel engine with one index tensor: take and
// put address the tensor as flat (a contiguous copy where it is not), index_fill and
// index_copy address one dimension through the restrided iterator stock built.
#include <cstdint>

#include <ATen/TensorIterator.h>
#include <ATen/core/Tensor.h>
#include <ATen/native/IndexKernel.h>
#include <ATen/ops/scalar_tensor.h>

#include "torch_core/csrc/aten/engine/stub_kernels.h"
#include "torch_core/csrc/aten/engine/stub_slot.h"

namespace torch_core::engine {

namespace {

// `flat` as a tensor of `shape` that reads element index[i] at every position: stride 0
// everywhere, the engine adds index * element size.
at::Tensor broadcast_base(const at::Tensor& flat, at::IntArrayRef shape) {
  return flat.as_strided(shape, std::vector<int64_t>(shape.size(), 0));
}

// take: out[i] = input.flatten()[index[i]], negative indices wrapped once. The iterator
// stock built holds (out, index).
void take_kernel(at::TensorIterator& iter, const at::TensorBase& input) {
  const at::Tensor out = iter.tensor(0);
  const at::Tensor index = iter.tensor(1);
  if (index.numel() == 0) return;
  const at::Tensor flat = at::Tensor(input).contiguous().view(-1);
  const at::Tensor base = broadcast_base(flat, index.sizes());
  auto gather = at::TensorIteratorConfig()
                    .set_check_mem_overlap(false)
                    .check_all_same_dtype(false)
                    .resize_outputs(false)
                    .add_output(out)
                    .add_const_input(base)
                    .add_const_input(index)
                    .build();
  run_index(gather, IndexKind::kGather, {flat.numel()}, {static_cast<int64_t>(flat.element_size())});
}

// put_: self.flatten()[index[i]] = source[i] (or +=). The iterator holds (source, index).
void put_kernel(at::TensorIterator& iter, const at::TensorBase& self_base, bool accumulate) {
  const at::Tensor source = iter.tensor(0);
  const at::Tensor index = iter.tensor(1);
  if (index.numel() == 0) return;
  const at::Tensor self(self_base);
  const bool in_place = self.is_contiguous();
  const at::Tensor flat = in_place ? self.view(-1) : self.contiguous().view(-1);
  const at::Tensor base = broadcast_base(flat, index.sizes());
  auto scatter = at::TensorIteratorConfig()
                     .set_check_mem_overlap(false)
                     .check_all_same_dtype(false)
                     .resize_outputs(false)
                     .add_output(base)
                     .add_const_input(source)
                     .add_const_input(index)
                     .build();
  run_index(scatter, accumulate ? IndexKind::kAccumulate : IndexKind::kPut, {flat.numel()},
            {static_cast<int64_t>(flat.element_size())});
  if (!in_place) at::Tensor(self).copy_(flat.view(self.sizes()));
}

// index_fill_: the iterator holds (self restrided with stride 0 along dim, the index
// restrided to self's shape); a one-element source is broadcast. Negative indices wrap.
void index_fill_kernel(at::TensorIterator& iter, int64_t, int64_t self_dim_size, int64_t self_dim_stride,
                       const c10::Scalar& source) {
  const at::Tensor self = iter.tensor(0);
  const at::Tensor value = at::scalar_tensor(source, self.options());
  auto fill = at::TensorIteratorConfig()
                  .set_check_mem_overlap(false)
                  .check_all_same_dtype(false)
                  .resize_outputs(false)
                  .add_output(self)
                  .add_const_input(value)
                  .add_const_input(iter.tensor(1))
                  .build();
  run_index(fill, IndexKind::kPut, {self_dim_size}, {self_dim_stride * static_cast<int64_t>(self.element_size())});
}

// index_copy: the iterator holds (self restrided, index restrided, source); indices are
// not wrapped (stock refuses a negative one).
void index_copy_kernel(at::TensorIterator& iter, int64_t, int64_t self_dim_size, int64_t self_dim_stride) {
  const at::Tensor self = iter.tensor(0);
  auto copy = at::TensorIteratorConfig()
                  .set_check_mem_overlap(false)
                  .check_all_same_dtype(false)
                  .resize_outputs(false)
                  .add_output(self)
                  .add_const_input(iter.tensor(2))
                  .add_const_input(iter.tensor(1))
                  .build();
  run_index(copy, IndexKind::kPut, {self_dim_size}, {self_dim_stride * static_cast<int64_t>(self.element_size())},
            /*wrap_negative=*/false);
}

}  // namespace

void fill_index_copy_stubs(c10::DeviceType t) {
  namespace native = at::native;
  set_slot(native::take_stub, t, &take_kernel);
  set_slot(native::put_stub, t, &put_kernel);
  set_slot(native::index_fill_stub, t, &index_fill_kernel);
  set_slot(native::index_copy_stub, t, &index_copy_kernel);
}

}  // namespace torch_core::engine
