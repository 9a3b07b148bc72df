// torch_cuda's native reductions on the CUDA key, shared by both variants: sum,
// sum.dim_IntList and amax. Each builds its loops with torch_core's tensor_loop.h and
// queues the variant's kernel (native_kernels.h) on the current CUDA stream of the
// operand's device. (Elementwise operators are stock ATen's, registered by the generated
// library and run by the variant's kernel engine.)
//
// Unsupported cases go to the CPU fallback, counted and under TORCH_CUDA_FALLBACK's
// policy, exactly as an operator with no CUDA kernel: other dtypes (half, bfloat16,
// bool, complex, ...), non-strided or more than kMaxDims dimensions.
#include <optional>
#include <vector>

#include <ATen/core/Tensor.h>
#include <ATen/ops/amax_ops.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/sum_ops.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/ScalarType.h>
#include <torch/library.h>

#include "third_device/torch_cuda/csrc/aten/native_kernels.h"
#include "third_device/torch_cuda/csrc/framework/cuda_backend.h"
#include "torch_core/aten/kernel_loop.h"
#include "torch_core/aten/tensor_loop.h"

namespace torch_cuda::native {

namespace {

using variant::ReduceOp;

bool on_cuda(const at::Tensor& t) { return t.defined() && t.is_cuda(); }

bool loopable(const at::Tensor& t) { return t.layout() == c10::kStrided && t.dim() <= torch_core::loop::kMaxDims; }

torch_core::StreamHandle current_stream(const at::Tensor& t) {
  return backend().streams().current_handle(t.device().index());
}

// sum's result dtype as ATen chooses it (integers accumulate into int64), when a kernel
// of native_kernels.h exists for it.
std::optional<c10::ScalarType> sum_dtype(c10::ScalarType in, std::optional<c10::ScalarType> requested) {
  c10::ScalarType out = in;
  if (in == c10::kInt || in == c10::kLong) out = c10::kLong;
  else if (in != c10::kFloat && in != c10::kDouble) return std::nullopt;
  if (requested.has_value() && *requested != out) return std::nullopt;
  return out;
}

bool amax_dtype(c10::ScalarType type) {
  return type == c10::kFloat || type == c10::kDouble || type == c10::kInt || type == c10::kLong;
}

at::Tensor reduce(ReduceOp op, const at::Tensor& self, c10::OptionalIntArrayRef dim, bool keepdim,
                  c10::ScalarType out_dtype) {
  const c10::DeviceGuard guard(self.device());
  const torch_core::Reduction reduction = torch_core::reduction_of(self, dim, keepdim);
  at::Tensor out = at::empty(reduction.out_shape, self.options().dtype(out_dtype));
  if (out.numel() == 0) return out;
  const auto loops = torch_core::make_reduce_loops(out, self, reduction.reduced);
  variant::launch_reduce(op, out_dtype, self.scalar_type(), loops.outer, loops.inner, current_stream(out));
  return out;
}

at::Tensor sum_dim(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                   std::optional<c10::ScalarType> dtype) {
  const auto out_dtype = on_cuda(self) && loopable(self) ? sum_dtype(self.scalar_type(), dtype) : std::nullopt;
  if (!out_dtype) return fall_back<at::_ops::sum_dim_IntList>(self, dim, keepdim, dtype);
  return reduce(ReduceOp::kSum, self, dim, keepdim, *out_dtype);
}

at::Tensor sum(const at::Tensor& self, std::optional<c10::ScalarType> dtype) {
  const auto out_dtype = on_cuda(self) && loopable(self) ? sum_dtype(self.scalar_type(), dtype) : std::nullopt;
  if (!out_dtype) return fall_back<at::_ops::sum>(self, dtype);
  return reduce(ReduceOp::kSum, self, std::nullopt, /*keepdim=*/false, *out_dtype);
}

// amax over an empty slice has no identity: ATen raises, so those cases take the
// fallback (the CPU kernel raises the same error).
at::Tensor amax(const at::Tensor& self, at::IntArrayRef dim, bool keepdim) {
  if (!on_cuda(self) || !loopable(self) || !amax_dtype(self.scalar_type()) || self.numel() == 0) {
    return fall_back<at::_ops::amax>(self, dim, keepdim);
  }
  return reduce(ReduceOp::kAmax, self, dim, keepdim, self.scalar_type());
}

}  // namespace

}  // namespace torch_cuda::native

// Static registrations (the target is alwayslink). Beside the generic ops and the
// fallback of framework/native_registration.cpp; the real variant adds linear algebra.
TORCH_LIBRARY_IMPL(aten, CUDA, m) {
  namespace native = torch_cuda::native;
  m.impl("sum", TORCH_FN(native::sum));
  m.impl("sum.dim_IntList", TORCH_FN(native::sum_dim));
  m.impl("amax", TORCH_FN(native::amax));
}
