// add and mul on the simulated device: broadcasting binary kernels over the loop API.
#include <optional>
#include <vector>

#include <ATen/Dispatch.h>
#include <ATen/ExpandUtils.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/ops/add_ops.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/mul_ops.h>
#include <c10/core/DeviceGuard.h>

#include "op_helpers.h"
#include "third_device/torch_sim/csrc/aten/sim_kernels.h"
#include "torch_core/aten/tensor_loop.h"

namespace torch_sim {

namespace {

enum class BinaryOp { kAdd, kMul };

// The second operand: a sim tensor of the same dtype, or a host scalar (a Python number or
// a 0-dimensional CPU tensor) whose value is passed to the kernel.
struct Operand {
  at::Tensor tensor;                 // defined for a device operand
  std::optional<c10::Scalar> value;  // set for a host scalar
};

std::optional<Operand> native_operand(const at::Tensor& self, const at::Tensor& other) {
  if (!detail::on_sim(self) || !detail::loopable(self) || !detail::native_dtype(self.scalar_type())) {
    return std::nullopt;
  }
  if (detail::on_sim(other)) {
    if (other.device() != self.device() || other.scalar_type() != self.scalar_type() || !detail::loopable(other)) {
      return std::nullopt;
    }
    return Operand{other, std::nullopt};
  }
  // A host scalar keeps self's dtype only when type promotion says so (a float scalar
  // with an integer tensor promotes to float: fall back).
  if (other.is_cpu() && other.dim() == 0 && !other.is_complex()) {
    const bool keeps_dtype =
        c10::isFloatingType(self.scalar_type()) || c10::isIntegralType(other.scalar_type(), /*includeBool=*/true);
    if (keeps_dtype) return Operand{at::Tensor(), other.item()};
  }
  return std::nullopt;
}

std::vector<int64_t> result_shape(const at::Tensor& self, const Operand& other) {
  if (other.tensor.defined()) return at::infer_size(self.sizes(), other.tensor.sizes());
  return self.sizes().vec();
}

template <typename T>
void launch_typed(BinaryOp op, const at::Tensor& out, const at::Tensor& self, const Operand& other,
                  const c10::Scalar& alpha_value) {
  const torch_core::StreamHandle stream = detail::stream_of(out);
  const T alpha = alpha_value.to<T>();
  if (other.tensor.defined()) {
    const auto loop = torch_core::make_loop<3>(out.sizes(), {&out, &self, &other.tensor});
    launch(stream, [loop, op, alpha] {
      if (op == BinaryOp::kAdd) {
        torch_core::loop::elementwise<T, T, T>(loop, [alpha](T a, T b) { return static_cast<T>(a + alpha * b); });
      } else {
        torch_core::loop::elementwise<T, T, T>(loop, [](T a, T b) { return static_cast<T>(a * b); });
      }
    });
  } else {
    const T b = other.value->to<T>();
    const auto loop = torch_core::make_loop<2>(out.sizes(), {&out, &self});
    launch(stream, [loop, op, alpha, b] {
      if (op == BinaryOp::kAdd) {
        torch_core::loop::elementwise<T, T>(loop, [alpha, b](T a) { return static_cast<T>(a + alpha * b); });
      } else {
        torch_core::loop::elementwise<T, T>(loop, [b](T a) { return static_cast<T>(a * b); });
      }
    });
  }
}

void launch_binary(BinaryOp op, const at::Tensor& out, const at::Tensor& self, const Operand& other,
                   const c10::Scalar& alpha) {
  switch (out.scalar_type()) {
    case c10::kFloat:
      return launch_typed<float>(op, out, self, other, alpha);
    case c10::kDouble:
      return launch_typed<double>(op, out, self, other, alpha);
    case c10::kInt:
      return launch_typed<int32_t>(op, out, self, other, alpha);
    case c10::kLong:
      return launch_typed<int64_t>(op, out, self, other, alpha);
    default:
      TORCH_INTERNAL_ASSERT(false, "sim binary kernel: unexpected dtype ", out.scalar_type());
  }
}

// An integer tensor cannot take a fractional alpha: that case falls back (ATen raises).
bool alpha_fits(const at::Tensor& self, const c10::Scalar& alpha) {
  return c10::isFloatingType(self.scalar_type()) || !alpha.isFloatingPoint();
}

at::Tensor binary(BinaryOp op, const at::Tensor& self, const Operand& other, const c10::Scalar& alpha) {
  const c10::DeviceGuard guard(self.device());
  at::Tensor out = at::empty(result_shape(self, other), self.options());
  launch_binary(op, out, self, other, alpha);
  return out;
}

// In place: self is the output, so the result must have self's shape.
bool binary_(BinaryOp op, at::Tensor& self, const Operand& other, const c10::Scalar& alpha) {
  if (result_shape(self, other) != self.sizes().vec()) return false;
  if (at::has_internal_overlap(self) == at::MemOverlap::Yes) return false;
  const c10::DeviceGuard guard(self.device());
  launch_binary(op, self, self, other, alpha);
  return true;
}

}  // namespace

at::Tensor add(const at::Tensor& self, const at::Tensor& other, const c10::Scalar& alpha) {
  const auto operand = native_operand(self, other);
  if (!operand || !alpha_fits(self, alpha)) return detail::fall_back<at::_ops::add_Tensor>(self, other, alpha);
  return binary(BinaryOp::kAdd, self, *operand, alpha);
}

at::Tensor& add_(at::Tensor& self, const at::Tensor& other, const c10::Scalar& alpha) {
  const auto operand = native_operand(self, other);
  if (operand && alpha_fits(self, alpha) && binary_(BinaryOp::kAdd, self, *operand, alpha)) return self;
  return detail::fall_back<at::_ops::add__Tensor>(self, other, alpha);
}

at::Tensor mul(const at::Tensor& self, const at::Tensor& other) {
  const auto operand = native_operand(self, other);
  if (!operand) return detail::fall_back<at::_ops::mul_Tensor>(self, other);
  return binary(BinaryOp::kMul, self, *operand, 1);
}

at::Tensor& mul_(at::Tensor& self, const at::Tensor& other) {
  const auto operand = native_operand(self, other);
  if (operand && binary_(BinaryOp::kMul, self, *operand, 1)) return self;
  return detail::fall_back<at::_ops::mul__Tensor>(self, other);
}

}  // namespace torch_sim
