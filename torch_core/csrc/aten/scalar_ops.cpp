// Reading one element to the host, and filling a tensor with one value.
#include <ATen/EmptyTensor.h>
#include <ATen/ops/_local_scalar_dense_native.h>
#include <c10/core/DeviceGuard.h>
#include <c10/util/Exception.h>

#include "torch_core/csrc/aten/device_kernels.h"
#include "torch_core/csrc/aten/native_ops.h"
#include "torch_core/csrc/aten/op_support.h"

namespace torch_core::native {

using aten_detail::backend_of;

c10::Scalar _local_scalar_dense(const at::Tensor& self) {
  TORCH_CHECK(self.numel() > 0, "_local_scalar_dense: the tensor has no elements");
  const c10::DeviceGuard guard(self.device());
  at::Tensor host = at::detail::empty_cpu({}, self.scalar_type(), /*pin_memory=*/false, std::nullopt);
  // The first element (a one-element tensor of any shape), viewed as 0-dimensional.
  copy_(host, self.as_strided({}, {}, self.storage_offset()), /*non_blocking=*/false);
  return at::native::_local_scalar_dense_cpu(host);
}

at::Tensor& fill_scalar_(at::Tensor& self, const c10::Scalar& value) {
  if (self.numel() == 0) return self;
  const c10::DeviceGuard guard(self.device());
  if (DeviceKernels* kernels = device_kernels(self.device().type())) {
    Backend& backend = backend_of(self.device());
    if (kernels->fill(self, value, backend.streams().current_handle(self.device().index()))) return self;
  }
  // Without a kernel: the value broadcast on the host, copied in.
  at::Tensor host = at::detail::empty_cpu({}, self.scalar_type(), /*pin_memory=*/false, std::nullopt);
  host.fill_(value);
  return copy_(self, host, /*non_blocking=*/false);
}

at::Tensor& zero_(at::Tensor& self) { return fill_scalar_(self, 0); }

}  // namespace torch_core::native
