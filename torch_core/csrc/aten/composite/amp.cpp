// The AMP gradient-scaler kernels on any torch_core backend: stock's CUDA kernels
// (_amp_foreach_non_finite_check_and_unscale_cuda_, _amp_update_scale_cuda_) defined over
// device operators, so a GradScaler step never reads its state back to the host.
#include <ATen/TensorOperators.h>
#include <ATen/ops/_amp_foreach_non_finite_check_and_unscale_native.h>
#include <ATen/ops/_amp_update_scale_native.h>
#include <ATen/ops/any.h>
#include <ATen/ops/isfinite.h>
#include <ATen/ops/maximum.h>
#include <ATen/ops/scalar_tensor.h>
#include <ATen/ops/where.h>
#include <c10/util/Exception.h>

namespace at::native {

void _amp_foreach_non_finite_check_and_unscale_cuda_(TensorList self, Tensor& found_inf, const Tensor& inv_scale) {
  TORCH_CHECK(inv_scale.numel() == 1, "inv_scale must be a 1-element tensor.");
  TORCH_CHECK(found_inf.numel() == 1, "found_inf must be a 1-element tensor.");
  TORCH_CHECK(inv_scale.scalar_type() == kFloat, "inv_scale must be a float tensor.");
  TORCH_CHECK(found_inf.scalar_type() == kFloat, "found_inf must be a float tensor.");
  for (const Tensor& t : self) {
    if (t.numel() == 0) continue;
    const Tensor non_finite = at::any(~at::isfinite(t)).to(kFloat);
    found_inf.copy_(at::maximum(found_inf, non_finite.view(found_inf.sizes())));
    t.mul_(inv_scale);
  }
}

Tensor& _amp_update_scale_cuda_(Tensor& self, Tensor& growth_tracker, const Tensor& found_inf,
                                double scale_growth_factor, double scale_backoff_factor, int64_t growth_interval) {
  TORCH_CHECK(growth_tracker.scalar_type() == kInt, "growth_tracker must be an int tensor.");
  TORCH_CHECK(self.scalar_type() == kFloat, "current_scale must be a float tensor.");
  TORCH_CHECK(found_inf.scalar_type() == kFloat, "found_inf must be a float tensor.");
  const Tensor found = found_inf > 0;
  const Tensor successful = growth_tracker + 1;
  const Tensor grow = ~found & (successful == growth_interval);
  const Tensor grown = self * scale_growth_factor;
  // The scale grows only to a finite value, as stock's kernel.
  const Tensor grown_scale = at::where(grow & at::isfinite(grown), grown, self);
  const Tensor zero = at::scalar_tensor(0, growth_tracker.options().device(kCPU));
  self.copy_(at::where(found, self * scale_backoff_factor, grown_scale));
  growth_tracker.copy_(at::where(found | grow, zero, successful));
  return self;
}

}  // namespace at::native
