// sum on the simulated device: a reduction over the loop API, accumulating in double for
// floating types and int64 for integers.
#include <vector>

#include <ATen/ops/empty.h>
#include <ATen/ops/sum_ops.h>
#include <c10/core/DeviceGuard.h>

#include "op_helpers.h"
#include "third_device/torch_sim/csrc/aten/sim_kernels.h"
#include "torch_core/aten/tensor_loop.h"

namespace torch_sim {

namespace {

template <typename T, typename Acc>
void launch_sum(const at::Tensor& out, const at::Tensor& self, const std::vector<bool>& reduced) {
  const auto loops = torch_core::make_reduce_loops(out, self, reduced);
  launch(detail::stream_of(out), [loops] {
    torch_core::loop::reduce<T, T, Acc>(loops.outer, loops.inner, Acc(0), [](Acc a, Acc b) { return a + b; });
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

  const torch_core::Reduction reduction = torch_core::reduction_of(self, dim, keepdim);
  const std::vector<bool>& reduced = reduction.reduced;
  const std::vector<int64_t>& out_shape = reduction.out_shape;
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
