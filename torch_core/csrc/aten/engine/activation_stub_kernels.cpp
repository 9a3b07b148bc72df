// The DispatchStub kernels of torch.nn.functional's other activations and their
// backwards (nn_activation_functors.h): elu, hardsigmoid, hardswish, hardtanh's backward,
// softplus, the shrinks, mish, logit, log_sigmoid's backward, glu and prelu. Each runs one elementwise call over
// stock's iterator, in the iterator's dtype as stock's CUDA kernels compute.
#include <ATen/TensorIterator.h>
#include <ATen/native/Activation.h>
#include <ATen/native/BinaryOps.h>
#include <ATen/native/UnaryOps.h>
#include <c10/core/Scalar.h>

#include "torch_core/csrc/aten/engine/stub_kernels.h"
#include "torch_core/csrc/aten/engine/stub_slot.h"

namespace torch_core::engine {

namespace {

using Op = ElementwiseOp;

void run(at::TensorIteratorBase& iter, Op op, const c10::Scalar& arg0 = 0, const c10::Scalar& arg1 = 0,
         const c10::Scalar& arg2 = 0, const c10::Scalar& arg3 = 0) {
  run_elementwise(iter, ElementwiseCall{op, iter.common_dtype(), arg0, arg1, arg2, arg3});
}

void elu_kernel(at::TensorIteratorBase& iter, const c10::Scalar& alpha, const c10::Scalar& scale,
                const c10::Scalar& input_scale) {
  run(iter, Op::kElu, alpha, scale, input_scale);
}
void elu_backward_kernel(at::TensorIteratorBase& iter, const c10::Scalar& alpha, const c10::Scalar& scale,
                         const c10::Scalar& input_scale, bool is_result) {
  run(iter, Op::kEluBackward, alpha, scale, input_scale, is_result);
}
void hardsigmoid_kernel(at::TensorIteratorBase& iter) { run(iter, Op::kHardsigmoid); }
void hardsigmoid_backward_kernel(at::TensorIteratorBase& iter) { run(iter, Op::kHardsigmoidBackward); }
void hardswish_kernel(at::TensorIterator& iter) { run(iter, Op::kHardswish); }
void hardswish_backward_kernel(at::TensorIterator& iter) { run(iter, Op::kHardswishBackward); }
void hardtanh_backward_kernel(at::TensorIterator& iter, const c10::Scalar& min, const c10::Scalar& max) {
  run(iter, Op::kHardtanhBackward, min, max);
}
void softplus_kernel(at::TensorIteratorBase& iter, const c10::Scalar& beta, const c10::Scalar& threshold) {
  run(iter, Op::kSoftplus, beta, threshold);
}
void softplus_backward_kernel(at::TensorIteratorBase& iter, const c10::Scalar& beta,
                              const c10::Scalar& threshold) {
  run(iter, Op::kSoftplusBackward, beta, threshold);
}
void softshrink_kernel(at::TensorIteratorBase& iter, const c10::Scalar& lambda) { run(iter, Op::kSoftshrink, lambda); }
void hardshrink_kernel(at::TensorIteratorBase& iter, const c10::Scalar& lambda) { run(iter, Op::kHardshrink, lambda); }
void shrink_backward_kernel(at::TensorIteratorBase& iter, const c10::Scalar& lambda) {
  run(iter, Op::kShrinkBackward, lambda);
}
void mish_kernel(at::TensorIteratorBase& iter) { run(iter, Op::kMish); }
void mish_backward_kernel(at::TensorIterator& iter) { run(iter, Op::kMishBackward); }
void logit_kernel(at::TensorIteratorBase& iter, const c10::Scalar& eps) { run(iter, Op::kLogit, eps); }
void logit_backward_kernel(at::TensorIteratorBase& iter, const c10::Scalar& eps) {
  run(iter, Op::kLogitBackward, eps);
}
void log_sigmoid_backward_kernel(at::TensorIterator& iter) { run(iter, Op::kLogSigmoidBackward); }
void glu_kernel(at::TensorIteratorBase& iter) { run(iter, Op::kGlu); }
void prelu_kernel(at::TensorIterator& iter) { run(iter, Op::kPrelu); }

}  // namespace

void fill_activation_stubs(c10::DeviceType t) {
  namespace native = at::native;
#define TORCH_CORE_FILL(stub) set_slot(native::stub##_stub, t, &stub##_kernel);
  TORCH_CORE_FILL(elu) TORCH_CORE_FILL(elu_backward) TORCH_CORE_FILL(hardsigmoid)
  TORCH_CORE_FILL(hardsigmoid_backward) TORCH_CORE_FILL(hardswish) TORCH_CORE_FILL(hardswish_backward)
  TORCH_CORE_FILL(hardtanh_backward) TORCH_CORE_FILL(softplus) TORCH_CORE_FILL(softplus_backward)
  TORCH_CORE_FILL(softshrink) TORCH_CORE_FILL(hardshrink) TORCH_CORE_FILL(shrink_backward) TORCH_CORE_FILL(mish)
  TORCH_CORE_FILL(mish_backward) TORCH_CORE_FILL(logit) TORCH_CORE_FILL(logit_backward) TORCH_CORE_FILL(log_sigmoid_backward)
  TORCH_CORE_FILL(glu)
  TORCH_CORE_FILL(prelu)
#undef TORCH_CORE_FILL
}

}  // namespace torch_core::engine
