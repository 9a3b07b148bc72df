// The DispatchStub kernels of the regression losses (mse, smooth_l1, huber: forward and
// backward), renorm's scale factor and angle (loss_functors.h): stock's device-generic
// operators build the iterator and reduce; these run its pointwise part on the engine.
#include <ATen/TensorIterator.h>
#include <ATen/native/BinaryOps.h>
#include <ATen/native/Normalization.h>
#include <ATen/native/PointwiseOps.h>
#include <ATen/native/UnaryOps.h>
#include <c10/core/Scalar.h>

#include "torch_core/csrc/aten/engine/stub_kernels.h"
#include "torch_core/csrc/aten/engine/stub_slot.h"

namespace torch_core::engine {

namespace {

using Op = ElementwiseOp;

void run(at::TensorIteratorBase& iter, Op op, const c10::Scalar& arg0 = 0, const c10::Scalar& arg1 = 0) {
  run_elementwise(iter, ElementwiseCall{op, iter.common_dtype(), arg0, arg1});
}

void mse_kernel(at::TensorIteratorBase& iter) { run(iter, Op::kMse); }
void mse_backward_kernel(at::TensorIterator& iter, const c10::Scalar& alpha) { run(iter, Op::kMseBackward, alpha); }
void smooth_l1_kernel(at::TensorIteratorBase& iter, double beta) { run(iter, Op::kSmoothL1, beta); }
void smooth_l1_backward_kernel(at::TensorIterator& iter, const c10::Scalar& norm, double beta) {
  run(iter, Op::kSmoothL1Backward, norm, beta);
}
void huber_kernel(at::TensorIterator& iter, double delta) { run(iter, Op::kHuber, delta); }
void huber_backward_kernel(at::TensorIterator& iter, const c10::Scalar& norm, double delta) {
  run(iter, Op::kHuberBackward, norm, delta);
}
void renorm_scale_factor_kernel(at::TensorIteratorBase& iter, double maxnorm) {
  run(iter, Op::kRenormFactor, maxnorm);
}
void angle_kernel(at::TensorIteratorBase& iter) { run(iter, Op::kAngle); }

}  // namespace

void fill_loss_stubs(c10::DeviceType t) {
  namespace native = at::native;
#define TORCH_CORE_FILL(stub) set_slot(native::stub##_stub, t, &stub##_kernel);
  TORCH_CORE_FILL(mse) TORCH_CORE_FILL(mse_backward) TORCH_CORE_FILL(smooth_l1) TORCH_CORE_FILL(smooth_l1_backward)
  TORCH_CORE_FILL(huber) TORCH_CORE_FILL(huber_backward) TORCH_CORE_FILL(renorm_scale_factor) TORCH_CORE_FILL(angle)
#undef TORCH_CORE_FILL
}

}  // namespace torch_core::engine
