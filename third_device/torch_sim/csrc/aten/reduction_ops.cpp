// sum on the simulated device: a reduction over the loop API, accumulating in double for
// floating types and int64 for integers.
#include <vector>

#include <ATen/ops/empty.h>
#include <ATen/ops/sum_ops.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/WrapDimMinimal.h>
#include <c10/util/Exception.h>

#include "op_helpers.h"
#include "third_device/torch_sim/csrc/aten/sim_kernels.h"

namespace torch_sim {

namespace {

template <typename T, typename Acc>
void launch_sum(const at::Tensor& out, const at::Tensor& self, const std::vector<bool>& reduced) {
  namespace loop = torch_core::loop;
  const auto itemsize = static_cast<int64_t>(self.element_size());
  // Outer loop: the kept dimensions (operand 0 the output, contiguous over them; operand 1
  // the input). Inner loop: the reduced dimensions of the input.
  loop::StridedLoop<2> outer;
  loop::StridedLoop<1> inner;
  outer.data[0] = static_cast<char*>(out.data_ptr());
  outer.data[1] = static_cast<char*>(const_cast<void*>(self.const_data_ptr()));
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (reduced[static_cast<std::size_t>(d)]) {
      inner.sizes[inner.ndim] = self.size(d);
      inner.strides[0][inner.ndim] = self.stride(d) * itemsize;
      ++inner.ndim;
    } else {
      kept.push_back(d);
    }
  }
  int64_t out_stride = itemsize;
  outer.ndim = static_cast<int>(kept.size());
  for (int i = outer.ndim - 1; i >= 0; --i) {
    const int64_t d = kept[static_cast<std::size_t>(i)];
    outer.sizes[i] = self.size(d);
    outer.strides[0][i] = out_stride;
    outer.strides[1][i] = self.stride(d) * itemsize;
    out_stride *= self.size(d);
  }
  launch(detail::stream_of(out), [outer, inner] {
    loop::reduce<T, T, Acc>(outer, inner, Acc(0), [](Acc a, Acc b) { return a + b; });
  });
}

}  // namespace

at::Tensor sum_dim(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                   std::optional<c10::ScalarType> dtype) {
  const bool native = detail::on_sim(self) && detail::loopable(self) &&
                      (self.scalar_type() == c10::kFloat || self.scalar_type() == c10::kDouble ||
                       self.scalar_type() == c10::kLong) &&
                      (!dtype.has_value() || *dtype == self.scalar_type());
  if (!native) return detail::fall_back<at::_ops::sum_dim_IntList>(self, dim, keepdim, dtype);

  // No dims (None or []) reduces every dimension, as ATen's sum.
  std::vector<bool> reduced(static_cast<std::size_t>(self.dim()), !dim.has_value() || dim->empty());
  if (dim.has_value()) {
    for (const int64_t d : *dim) {
      // A 0-dim tensor accepts dim 0 / -1 (wrapped as for one dimension) and has nothing
      // to reduce: the vector is empty then (indexing it crashed: OpInfo sum sample 1).
      const auto wrapped = static_cast<std::size_t>(c10::maybe_wrap_dim(d, self.dim()));
      if (self.dim() == 0) continue;
      TORCH_CHECK(!reduced[wrapped], "dim ", wrapped, " appears multiple times in the list of dims");
      reduced[wrapped] = true;
    }
  }
  std::vector<int64_t> out_shape;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (!reduced[static_cast<std::size_t>(d)]) out_shape.push_back(self.size(d));
    else if (keepdim) out_shape.push_back(1);
  }
  const c10::DeviceGuard guard(self.device());
  at::Tensor out = at::empty(out_shape, self.options());
  switch (self.scalar_type()) {
    case c10::kFloat:
      launch_sum<float, double>(out, self, reduced);
      break;
    case c10::kDouble:
      launch_sum<double, double>(out, self, reduced);
      break;
    default:
      launch_sum<int64_t, int64_t>(out, self, reduced);
      break;
  }
  return out;
}

at::Tensor sum(const at::Tensor& self, std::optional<c10::ScalarType> dtype) {
  if (dtype.has_value() && *dtype != self.scalar_type()) return detail::fall_back<at::_ops::sum>(self, dtype);
  return sum_dim(self, std::nullopt, /*keepdim=*/false, dtype);
}

}  // namespace torch_sim
