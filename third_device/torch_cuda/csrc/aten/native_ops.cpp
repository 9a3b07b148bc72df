// torch_cuda's native elementwise and reduction operators on the CUDA key, shared by both
// variants: add/sub/mul/div (functional, in-place and out=), sum, sum.dim_IntList and
// amax. Each builds its loops with torch_core's tensor_loop.h and queues the variant's
// kernel (native_kernels.h) on the current CUDA stream of the operand's device.
//
// Unsupported cases go to the CPU fallback, counted and under TORCH_CUDA_FALLBACK's
// policy, exactly as an operator with no CUDA kernel: other dtypes (half, bfloat16,
// bool, complex, ...), operands that need type promotion, mixed devices, non-strided or
// more than kMaxDims dimensions, integer div (it promotes to float), an in-place result
// whose shape broadcasting would change, internally overlapping outputs. Falling back
// rather than raising keeps every case correct (the CPU computes it, with torch's own
// errors and promotion), and the counters say which ones still want a kernel.
#include <optional>
#include <utility>
#include <vector>

#include <ATen/ExpandUtils.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/core/Tensor.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/add_ops.h>
#include <ATen/ops/amax_ops.h>
#include <ATen/ops/div_ops.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/full.h>
#include <ATen/ops/mul_ops.h>
#include <ATen/ops/sub_ops.h>
#include <ATen/ops/sum_ops.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/Scalar.h>
#include <c10/core/ScalarType.h>
#include <torch/library.h>

#include "third_device/torch_cuda/csrc/aten/native_kernels.h"
#include "third_device/torch_cuda/csrc/framework/cuda_backend.h"
#include "torch_core/aten/kernel_loop.h"
#include "torch_core/aten/tensor_loop.h"

namespace torch_cuda::native {

namespace {

using variant::BinaryOp;
using variant::ReduceOp;

bool on_cuda(const at::Tensor& t) { return t.defined() && t.is_cuda(); }

bool loopable(const at::Tensor& t) { return t.layout() == c10::kStrided && t.dim() <= torch_core::loop::kMaxDims; }

torch_core::StreamHandle current_stream(const at::Tensor& t) {
  return backend().streams().current_handle(t.device().index());
}

// The dtypes of native_kernels.h's launch_binary.
bool binary_dtype(BinaryOp op, c10::ScalarType type) {
  if (type == c10::kFloat || type == c10::kDouble) return true;
  return op != BinaryOp::kDiv && (type == c10::kInt || type == c10::kLong);
}

// As ATen's TensorIterator: operands on two devices are an error (a host scalar, a
// 0-dim CPU tensor, is not an operand on the CPU), rather than a silent CPU computation.
void check_same_device(const at::Tensor& self, const at::Tensor& other) {
  if (!self.defined() || !other.defined() || self.device() == other.device()) return;
  if ((self.is_cpu() && self.dim() == 0) || (other.is_cpu() && other.dim() == 0)) return;
  TORCH_CHECK(false, "Expected all tensors to be on the same device, but found at least two devices, ",
              self.device(), " and ", other.device(), "!");
}

// A host scalar (a Python number or 0-dim CPU tensor) whose type promotion with `t`
// keeps t's dtype, put in a 0-dim tensor on t's device that the loop broadcasts. (A kernel
// argument would save that tensor; the launchers take three operands.)
std::optional<at::Tensor> device_scalar(const at::Tensor& t, const at::Tensor& scalar) {
  if (!scalar.defined() || !scalar.is_cpu() || scalar.dim() != 0 || scalar.is_complex()) return std::nullopt;
  const bool keeps_dtype =
      c10::isFloatingType(t.scalar_type()) || c10::isIntegralType(scalar.scalar_type(), /*includeBool=*/true);
  if (!keeps_dtype) return std::nullopt;
  return at::full({}, scalar.item(), t.options());
}

// Both operands as CUDA tensors of one dtype on one device, when a kernel covers them:
// two such tensors, or one and a host scalar on either side (1 - x is sub(scalar, x)).
using Operands = std::pair<at::Tensor, at::Tensor>;

bool native_tensor(BinaryOp op, const at::Tensor& t) {
  return on_cuda(t) && loopable(t) && binary_dtype(op, t.scalar_type());
}

std::optional<Operands> native_operands(BinaryOp op, const at::Tensor& self, const at::Tensor& other) {
  check_same_device(self, other);
  if (native_tensor(op, self)) {
    if (on_cuda(other)) {
      if (other.device() != self.device() || other.scalar_type() != self.scalar_type() || !loopable(other)) {
        return std::nullopt;
      }
      return Operands{self, other};
    }
    if (auto scalar = device_scalar(self, other)) return Operands{self, *scalar};
  } else if (native_tensor(op, other) && !on_cuda(self)) {
    if (auto scalar = device_scalar(other, self)) return Operands{*scalar, other};
  }
  return std::nullopt;
}

// An integer tensor cannot take a fractional alpha: that case falls back (ATen raises).
bool alpha_fits(const at::Tensor& self, const c10::Scalar& alpha) {
  return c10::isFloatingType(self.scalar_type()) || !alpha.isFloatingPoint();
}

void launch(BinaryOp op, const at::Tensor& out, const at::Tensor& self, const at::Tensor& other,
            const c10::Scalar& alpha) {
  const auto loop = torch_core::make_loop<3>(out.sizes(), {&out, &self, &other});
  if (loop.numel() == 0) return;
  variant::launch_binary(op, out.scalar_type(), loop, alpha, current_stream(out));
}

std::optional<at::Tensor> binary(BinaryOp op, const at::Tensor& self, const at::Tensor& other,
                                 const c10::Scalar& alpha) {
  const auto operands = native_operands(op, self, other);
  if (!operands || !alpha_fits(operands->first, alpha)) return std::nullopt;
  const auto& [a, b] = *operands;
  const c10::DeviceGuard guard(a.device());
  at::Tensor out = at::empty(at::infer_size(a.sizes(), b.sizes()), a.options());
  launch(op, out, a, b, alpha);
  return out;
}

// In place: self is the output, so the result must have self's shape.
bool binary_(BinaryOp op, const at::Tensor& self, const at::Tensor& other, const c10::Scalar& alpha) {
  if (!on_cuda(self)) return false;
  const auto operands = native_operands(op, self, other);
  if (!operands || !alpha_fits(self, alpha)) return false;
  const at::Tensor& b = operands->second;
  if (at::infer_size(self.sizes(), b.sizes()) != self.sizes().vec()) return false;
  if (at::has_internal_overlap(self) == at::MemOverlap::Yes) return false;
  const c10::DeviceGuard guard(self.device());
  launch(op, self, self, b, alpha);
  return true;
}

// out=: a CUDA tensor of the result's dtype on the same device, resized as ATen does
// (resize_output) when its shape differs.
bool binary_out(BinaryOp op, const at::Tensor& self, const at::Tensor& other, const c10::Scalar& alpha,
                const at::Tensor& out) {
  const auto operands = native_operands(op, self, other);
  if (!operands || !alpha_fits(operands->first, alpha)) return false;
  const auto& [a, b] = *operands;
  if (!on_cuda(out) || out.device() != a.device() || out.scalar_type() != a.scalar_type() || !loopable(out)) {
    return false;
  }
  if (at::has_internal_overlap(out) == at::MemOverlap::Yes) return false;
  at::assert_no_partial_overlap(out, a);
  at::assert_no_partial_overlap(out, b);
  const c10::DeviceGuard guard(a.device());
  at::native::resize_output(out, at::infer_size(a.sizes(), b.sizes()));
  launch(op, out, a, b, alpha);
  return true;
}

at::Tensor add(const at::Tensor& self, const at::Tensor& other, const c10::Scalar& alpha) {
  if (auto out = binary(BinaryOp::kAdd, self, other, alpha)) return *out;
  return fall_back<at::_ops::add_Tensor>(self, other, alpha);
}
at::Tensor& add_(at::Tensor& self, const at::Tensor& other, const c10::Scalar& alpha) {
  if (binary_(BinaryOp::kAdd, self, other, alpha)) return self;
  return fall_back<at::_ops::add__Tensor>(self, other, alpha);
}
at::Tensor& add_out(const at::Tensor& self, const at::Tensor& other, const c10::Scalar& alpha, at::Tensor& out) {
  if (binary_out(BinaryOp::kAdd, self, other, alpha, out)) return out;
  return fall_back<at::_ops::add_out>(self, other, alpha, out);
}

at::Tensor sub(const at::Tensor& self, const at::Tensor& other, const c10::Scalar& alpha) {
  if (auto out = binary(BinaryOp::kSub, self, other, alpha)) return *out;
  return fall_back<at::_ops::sub_Tensor>(self, other, alpha);
}
at::Tensor& sub_(at::Tensor& self, const at::Tensor& other, const c10::Scalar& alpha) {
  if (binary_(BinaryOp::kSub, self, other, alpha)) return self;
  return fall_back<at::_ops::sub__Tensor>(self, other, alpha);
}
at::Tensor& sub_out(const at::Tensor& self, const at::Tensor& other, const c10::Scalar& alpha, at::Tensor& out) {
  if (binary_out(BinaryOp::kSub, self, other, alpha, out)) return out;
  return fall_back<at::_ops::sub_out>(self, other, alpha, out);
}

at::Tensor mul(const at::Tensor& self, const at::Tensor& other) {
  if (auto out = binary(BinaryOp::kMul, self, other, 1)) return *out;
  return fall_back<at::_ops::mul_Tensor>(self, other);
}
at::Tensor& mul_(at::Tensor& self, const at::Tensor& other) {
  if (binary_(BinaryOp::kMul, self, other, 1)) return self;
  return fall_back<at::_ops::mul__Tensor>(self, other);
}
at::Tensor& mul_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  if (binary_out(BinaryOp::kMul, self, other, 1, out)) return out;
  return fall_back<at::_ops::mul_out>(self, other, out);
}

at::Tensor div(const at::Tensor& self, const at::Tensor& other) {
  if (auto out = binary(BinaryOp::kDiv, self, other, 1)) return *out;
  return fall_back<at::_ops::div_Tensor>(self, other);
}
at::Tensor& div_(at::Tensor& self, const at::Tensor& other) {
  if (binary_(BinaryOp::kDiv, self, other, 1)) return self;
  return fall_back<at::_ops::div__Tensor>(self, other);
}
at::Tensor& div_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  if (binary_out(BinaryOp::kDiv, self, other, 1, out)) return out;
  return fall_back<at::_ops::div_out>(self, other, out);
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
  m.impl("add.Tensor", TORCH_FN(native::add));
  m.impl("add_.Tensor", TORCH_FN(native::add_));
  m.impl("add.out", TORCH_FN(native::add_out));
  m.impl("sub.Tensor", TORCH_FN(native::sub));
  m.impl("sub_.Tensor", TORCH_FN(native::sub_));
  m.impl("sub.out", TORCH_FN(native::sub_out));
  m.impl("mul.Tensor", TORCH_FN(native::mul));
  m.impl("mul_.Tensor", TORCH_FN(native::mul_));
  m.impl("mul.out", TORCH_FN(native::mul_out));
  m.impl("div.Tensor", TORCH_FN(native::div));
  m.impl("div_.Tensor", TORCH_FN(native::div_));
  m.impl("div.out", TORCH_FN(native::div_out));
  m.impl("sum", TORCH_FN(native::sum));
  m.impl("sum.dim_IntList", TORCH_FN(native::sum_dim));
  m.impl("amax", TORCH_FN(native::amax));
}
