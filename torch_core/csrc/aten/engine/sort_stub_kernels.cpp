// sort_stub: stock's sort (and argsort, msort, and topk in composite/sorting.cpp) copies
// the input into `values` and calls this to sort it along `dim` and fill `indices`. The
// kernel gathers the dimension into contiguous segments, has the engine sort them
// (sort_call.h), and writes the result back through the outputs' strides.
#include <cstdint>
#include <limits>

#include <ATen/WrapDimUtils.h>
#include <ATen/core/Tensor.h>
#include <ATen/native/Sorting.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/empty.h>
#include <c10/util/Exception.h>

#include "torch_core/csrc/aten/engine/iterator_loop.h"
#include "torch_core/csrc/aten/engine/kernel_engine.h"
#include "torch_core/csrc/aten/engine/stub_kernels.h"
#include "torch_core/csrc/aten/engine/stub_slot.h"

namespace torch_core::engine {

namespace {

// `stable` is not read: the engines' sorts are always stable, which satisfies both.
void sort_kernel(const at::TensorBase& /*self*/, const at::TensorBase& values_base,
                 const at::TensorBase& indices_base, int64_t dim, bool descending, bool /*stable*/) {
  const at::Tensor values(values_base);
  const at::Tensor indices(indices_base);
  if (values.numel() == 0) return;
  dim = at::maybe_wrap_dim(dim, values.dim());
  const at::Tensor values_last = dim_last(values, dim);
  const at::Tensor keys = values_last.contiguous();
  const int64_t segment_size = keys.size(-1);
  TORCH_CHECK(segment_size <= std::numeric_limits<int32_t>::max(), "sort: a dimension of ", segment_size,
              " elements is more than the 2^31 - 1 that torch_core's sort takes");
  const int64_t segments = keys.numel() / segment_size;
  const auto long_options = keys.options().dtype(at::kLong);
  const at::Tensor order = at::empty(keys.sizes(), long_options);
  const at::Tensor offsets = at::arange(0, (segments + 1) * segment_size, segment_size, long_options);

  SortCall call;
  call.dtype = keys.scalar_type();
  call.descending = descending;
  call.segments = segments;
  call.segment_size = segment_size;
  call.keys = static_cast<char*>(keys.data_ptr());
  call.indices = order.data_ptr<int64_t>();
  call.segment_offsets = offsets.const_data_ptr<int64_t>();
  KernelEngine& engine = kernel_engine(values.device().type());
  call.scratch_bytes = engine.sort_scratch_bytes(call);
  const at::Tensor scratch = engine_scratch(values.device(), call.scratch_bytes, call.scratch);
  engine.sort(call, current_stream(values.device()));

  if (!keys.is_same(values_last)) values_last.copy_(keys);
  dim_last(indices, dim).copy_(order);
}

}  // namespace

void fill_sort_stubs(c10::DeviceType t) { set_slot(at::native::sort_stub, t, &sort_kernel); }

}  // namespace torch_core::engine
