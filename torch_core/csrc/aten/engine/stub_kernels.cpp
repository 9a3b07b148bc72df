#include "torch_core/csrc/aten/engine/stub_kernels.h"

#include <ATen/Dispatch.h>
#include <ATen/TensorIterator.h>
#include <ATen/native/Activation.h>
#include <ATen/native/BinaryOps.h>
#include <ATen/native/Fill.h>
#include <ATen/native/IndexKernel.h>
#include <ATen/native/TensorAdvancedIndexing.h>
#include <ATen/native/Lerp.h>
#include <ATen/native/PointwiseOps.h>
#include <ATen/native/Pow.h>
#include <ATen/native/ReduceAllOps.h>
#include <ATen/native/ReduceOps.h>
#include <ATen/native/ReduceOpsUtils.h>
#include <ATen/native/TensorCompare.h>
#include <ATen/native/UnaryOps.h>
#include <ATen/ops/empty.h>
#include <c10/core/Scalar.h>
#include <c10/util/Exception.h>

#include "torch_core/csrc/aten/engine/iterator_loop.h"
#include "torch_core/csrc/aten/engine/kernel_engine.h"
#include "torch_core/csrc/aten/engine/stub_slot.h"

namespace torch_core::engine {

namespace {

using Op = ElementwiseOp;

void run(at::TensorIteratorBase& iter, Op op, c10::ScalarType compute, const c10::Scalar& arg0 = 0,
         const c10::Scalar& arg1 = 0) {
  run_elementwise(iter, ElementwiseCall{op, compute, arg0, arg1});
}

// The compute dtype follows stock's CUDA kernel of each stub: the common dtype where the
// iterator promotes its inputs, the output's (iter.dtype()) where it does not.
#define TORCH_CORE_COMMON(stub, name)                   \
  void stub##_kernel(at::TensorIteratorBase& iter) { run(iter, Op::k##name, iter.common_dtype()); }
#define TORCH_CORE_OUTPUT(stub, name)                   \
  void stub##_kernel(at::TensorIteratorBase& iter) { run(iter, Op::k##name, iter.dtype()); }

TORCH_CORE_COMMON(sin, Sin)
TORCH_CORE_COMMON(cos, Cos)
TORCH_CORE_COMMON(tan, Tan)
TORCH_CORE_COMMON(asin, Asin)
TORCH_CORE_COMMON(acos, Acos)
TORCH_CORE_COMMON(atan, Atan)
TORCH_CORE_COMMON(sinh, Sinh)
TORCH_CORE_COMMON(cosh, Cosh)
TORCH_CORE_COMMON(tanh, Tanh)
TORCH_CORE_COMMON(asinh, Asinh)
TORCH_CORE_COMMON(acosh, Acosh)
TORCH_CORE_COMMON(atanh, Atanh)
TORCH_CORE_COMMON(exp, Exp)
TORCH_CORE_COMMON(exp2, Exp2)
TORCH_CORE_COMMON(expm1, Expm1)
TORCH_CORE_COMMON(log, Log)
TORCH_CORE_COMMON(log10, Log10)
TORCH_CORE_COMMON(log1p, Log1p)
TORCH_CORE_COMMON(log2, Log2)
TORCH_CORE_COMMON(sqrt, Sqrt)
TORCH_CORE_COMMON(rsqrt, Rsqrt)
TORCH_CORE_COMMON(sigmoid, Sigmoid)
TORCH_CORE_COMMON(erf, Erf)
TORCH_CORE_COMMON(erfc, Erfc)
TORCH_CORE_COMMON(reciprocal, Reciprocal)
TORCH_CORE_COMMON(lgamma, Lgamma)
TORCH_CORE_OUTPUT(ceil, Ceil)
TORCH_CORE_OUTPUT(floor, Floor)
TORCH_CORE_OUTPUT(round, Round)
TORCH_CORE_OUTPUT(trunc, Trunc)
TORCH_CORE_OUTPUT(frac, Frac)
TORCH_CORE_OUTPUT(abs, Abs)
TORCH_CORE_OUTPUT(neg, Neg)
TORCH_CORE_OUTPUT(sign, Sign)
TORCH_CORE_OUTPUT(bitwise_not, BitwiseNot)
TORCH_CORE_COMMON(silu, Silu)
TORCH_CORE_COMMON(silu_backward, SiluBackward)
TORCH_CORE_OUTPUT(sigmoid_backward, SigmoidBackward)
TORCH_CORE_OUTPUT(tanh_backward, TanhBackward)
TORCH_CORE_COMMON(mul, Mul)
TORCH_CORE_COMMON(div_true, DivTrue)
TORCH_CORE_COMMON(div_floor, DivFloor)
TORCH_CORE_COMMON(div_trunc, DivTrunc)
TORCH_CORE_COMMON(remainder, Remainder)
TORCH_CORE_COMMON(fmod, Fmod)
TORCH_CORE_COMMON(maximum, Maximum)
TORCH_CORE_COMMON(minimum, Minimum)
TORCH_CORE_COMMON(atan2, Atan2)
TORCH_CORE_COMMON(pow_tensor_tensor, Pow)
TORCH_CORE_COMMON(bitwise_and, BitwiseAnd)
TORCH_CORE_COMMON(bitwise_or, BitwiseOr)
TORCH_CORE_COMMON(bitwise_xor, BitwiseXor)
TORCH_CORE_COMMON(eq, Eq)
TORCH_CORE_COMMON(ne, Ne)
TORCH_CORE_COMMON(lt, Lt)
TORCH_CORE_COMMON(le, Le)
TORCH_CORE_COMMON(gt, Gt)
TORCH_CORE_COMMON(ge, Ge)
TORCH_CORE_COMMON(clamp, ClampTensor)
TORCH_CORE_COMMON(lerp_tensor, LerpTensor)
#undef TORCH_CORE_COMMON
#undef TORCH_CORE_OUTPUT

// isneginf / isposinf test the input's values (the output is bool).
void isneginf_kernel(at::TensorIteratorBase& iter) { run(iter, Op::kIsNegInf, iter.dtype(1)); }
void isposinf_kernel(at::TensorIteratorBase& iter) { run(iter, Op::kIsPosInf, iter.dtype(1)); }

// logical_not computes in its input's dtype and writes any output dtype.
void logical_not_kernel(at::TensorIteratorBase& iter) { run(iter, Op::kLogicalNot, iter.dtype(1)); }

// These stubs take a TensorIterator (not its base).
void logical_and_kernel(at::TensorIterator& iter) { run(iter, Op::kLogicalAnd, iter.common_dtype()); }
void logical_or_kernel(at::TensorIterator& iter) { run(iter, Op::kLogicalOr, iter.common_dtype()); }
void logical_xor_kernel(at::TensorIterator& iter) { run(iter, Op::kLogicalXor, iter.common_dtype()); }
void where_kernel(at::TensorIterator& iter) { run(iter, Op::kWhere, iter.dtype()); }

void add_kernel(at::TensorIteratorBase& iter, const c10::Scalar& alpha) {
  run(iter, Op::kAdd, iter.common_dtype(), alpha);
}
void pow_tensor_scalar_kernel(at::TensorIteratorBase& iter, const c10::Scalar& exponent) {
  run(iter, Op::kPowScalar, iter.common_dtype(), exponent);
}
void threshold_kernel(at::TensorIteratorBase& iter, const c10::Scalar& threshold, const c10::Scalar& value) {
  run(iter, Op::kThreshold, iter.dtype(), threshold, value);
}
void leaky_relu_kernel(at::TensorIteratorBase& iter, const c10::Scalar& negval) {
  run(iter, Op::kLeakyRelu, iter.dtype(), negval);
}
void leaky_relu_backward_kernel(at::TensorIteratorBase& iter, const c10::Scalar& negval) {
  run(iter, Op::kLeakyReluBackward, iter.dtype(), negval);
}
void clamp_scalar_kernel(at::TensorIteratorBase& iter, const c10::Scalar& min, const c10::Scalar& max) {
  run(iter, Op::kClamp, iter.common_dtype(), min, max);
}
void clamp_min_scalar_kernel(at::TensorIteratorBase& iter, c10::Scalar min) {
  run(iter, Op::kClampMin, iter.common_dtype(), min);
}
void clamp_max_scalar_kernel(at::TensorIteratorBase& iter, c10::Scalar max) {
  run(iter, Op::kClampMax, iter.common_dtype(), max);
}
void addcmul_kernel(at::TensorIteratorBase& iter, const c10::Scalar& value) {
  run(iter, Op::kAddcmul, iter.common_dtype(), value);
}
void addcdiv_kernel(at::TensorIteratorBase& iter, const c10::Scalar& value) {
  run(iter, Op::kAddcdiv, iter.common_dtype(), value);
}
void lerp_scalar_kernel(at::TensorIteratorBase& iter, const c10::Scalar& weight) {
  run(iter, Op::kLerpScalar, iter.common_dtype(), weight);
}

// Reductions: the iterator is in reduce mode (outputs first, then the input); stock's
// operators handle an empty input before they call the stub.
void reduce(at::TensorIterator& iter, ReduceOp op, c10::ScalarType compute, double arg = 0, bool flag = false) {
  if (iter.numel() == 0) return;
  const ReduceCall call{op, compute, arg, flag, static_cast<int>(iter.noutputs())};
  kernel_engine(iter.device_type()).reduce(call, describe(iter), current_stream(iter));
}

void sum_kernel(at::TensorIterator& iter) { reduce(iter, ReduceOp::kSum, iter.dtype(0)); }
void nansum_kernel(at::TensorIterator& iter) { reduce(iter, ReduceOp::kNanSum, iter.dtype(0)); }
void prod_kernel(at::TensorIterator& iter) { reduce(iter, ReduceOp::kProd, iter.dtype(0)); }
void mean_kernel(at::TensorIterator& iter) {
  // stock's MeanOps factor: outputs / inputs, i.e. 1 / (elements per output).
  const double factor = static_cast<double>(iter.num_output_elements()) / static_cast<double>(iter.numel());
  reduce(iter, ReduceOp::kMean, iter.dtype(0), factor);
}
void max_values_kernel(at::TensorIterator& iter) { reduce(iter, ReduceOp::kMaxValues, iter.dtype(0)); }
void min_values_kernel(at::TensorIterator& iter) { reduce(iter, ReduceOp::kMinValues, iter.dtype(0)); }
void argmax_kernel(at::TensorIterator& iter) { reduce(iter, ReduceOp::kArgMax, iter.dtype(1)); }
void argmin_kernel(at::TensorIterator& iter) { reduce(iter, ReduceOp::kArgMin, iter.dtype(1)); }
// all / any read every input as bool.
void and_kernel(at::TensorIterator& iter) { reduce(iter, ReduceOp::kAll, c10::kBool); }
void or_kernel(at::TensorIterator& iter) { reduce(iter, ReduceOp::kAny, c10::kBool); }
void norm_kernel(at::TensorIterator& iter, const c10::Scalar& p) {
  reduce(iter, ReduceOp::kNorm, iter.input_dtype(), p.toDouble());
}
void std_var_kernel(at::TensorIterator& iter, double correction, bool take_sqrt) {
  reduce(iter, ReduceOp::kStdVar, iter.input_dtype(), correction, take_sqrt);
}

// max() / min() of every element (stock's min_all_stub / max_all_stub).
void max_all_kernel(at::Tensor& result, const at::Tensor& self) {
  auto iter = at::native::make_reduction("max_all", result, self, at::IntArrayRef{}, false, self.scalar_type());
  reduce(iter, ReduceOp::kMaxValues, self.scalar_type());
}
void min_all_kernel(at::Tensor& result, const at::Tensor& self) {
  auto iter = at::native::make_reduction("min_all", result, self, at::IntArrayRef{}, false, self.scalar_type());
  reduce(iter, ReduceOp::kMinValues, self.scalar_type());
}

// max.dim / min.dim: values and indices (sized by the structured meta function) as two
// reductions, the extreme value and the index of its first occurrence.
void values_and_indices(const at::Tensor& values, const at::Tensor& indices, const at::Tensor& self, int64_t dim,
                        bool keepdim, ReduceOp value_op, ReduceOp index_op) {
  auto value_iter = at::meta::make_reduction(self, values, at::IntArrayRef(dim), keepdim, self.scalar_type());
  reduce(value_iter, value_op, self.scalar_type());
  auto index_iter = at::meta::make_reduction(self, indices, at::IntArrayRef(dim), keepdim, self.scalar_type());
  reduce(index_iter, index_op, self.scalar_type());
}
void max_kernel(const at::Tensor& values, const at::Tensor& indices, const at::Tensor& self, int64_t dim,
                bool keepdim) {
  values_and_indices(values, indices, self, dim, keepdim, ReduceOp::kMaxValues, ReduceOp::kArgMax);
}
void min_kernel(const at::Tensor& values, const at::Tensor& indices, const at::Tensor& self, int64_t dim,
                bool keepdim) {
  values_and_indices(values, indices, self, dim, keepdim, ReduceOp::kMinValues, ReduceOp::kArgMin);
}

void fill_kernel(at::TensorIterator& iter, const c10::Scalar& value) {
  // The engine fills narrow integers through int64: check the value fits the dtype first,
  // with stock's overflow error.
  if (c10::isIntegralType(iter.dtype(), /*includeBool=*/false)) {
    AT_DISPATCH_INTEGRAL_TYPES(iter.dtype(), "fill", [&] { (void)value.to<scalar_t>(); });
  }
  run(iter, Op::kFill, iter.dtype(), value);
}

// aminmax: the minimum and the maximum as two reductions into the outputs the meta
// function sized (all elements: keepdim when the outputs kept self's rank).
void aminmax_kernel(const at::Tensor& self, int64_t dim, bool keepdim, at::Tensor& min, at::Tensor& max) {
  auto min_iter = at::meta::make_reduction(self, min, at::IntArrayRef(dim), keepdim, self.scalar_type());
  reduce(min_iter, ReduceOp::kMinValues, self.scalar_type());
  auto max_iter = at::meta::make_reduction(self, max, at::IntArrayRef(dim), keepdim, self.scalar_type());
  reduce(max_iter, ReduceOp::kMaxValues, self.scalar_type());
}
void aminmax_allreduce_kernel(const at::Tensor& self, at::Tensor& min, at::Tensor& max) {
  const bool keepdim = self.dim() > 0 && min.dim() == self.dim();
  auto min_iter = at::meta::make_reduction(self, min, std::nullopt, keepdim, self.scalar_type());
  reduce(min_iter, ReduceOp::kMinValues, self.scalar_type());
  auto max_iter = at::meta::make_reduction(self, max, std::nullopt, keepdim, self.scalar_type());
  reduce(max_iter, ReduceOp::kMaxValues, self.scalar_type());
}

// flip: stock hands a copy iterator whose input strides are negated along the flipped
// dimensions.
void flip_kernel(at::TensorIterator& iter, bool quantized) {
  TORCH_CHECK_NOT_IMPLEMENTED(!quantized, "flip of a quantized tensor is not supported on ", iter.device_type());
  run(iter, Op::kIdentity, iter.dtype());
}

void index_kernel(at::TensorIteratorBase& iter, at::IntArrayRef sizes, at::IntArrayRef strides) {
  run_index(iter, IndexKind::kGather, sizes, strides);
}
void index_put_kernel(at::TensorIterator& iter, at::IntArrayRef sizes, at::IntArrayRef strides, bool accumulate) {
  run_index(iter, accumulate ? IndexKind::kAccumulate : IndexKind::kPut, sizes, strides);
}

}  // namespace

void run_index(at::TensorIteratorBase& iter, IndexKind kind, at::IntArrayRef sizes, at::IntArrayRef strides,
               bool wrap_negative) {
  TORCH_CHECK(sizes.size() <= static_cast<std::size_t>(kMaxIndices), "torch_core's index kernels take at most ",
              kMaxIndices, " index tensors, got ", sizes.size());
  if (iter.numel() == 0) return;
  IndexCall call;
  call.kind = kind;
  call.wrap_negative = wrap_negative;
  call.nindices = static_cast<int>(sizes.size());
  for (int k = 0; k < call.nindices; ++k) {
    call.sizes[k] = sizes[k];
    call.strides[k] = strides[k];
  }
  kernel_engine(iter.device_type()).index(call, describe(iter), current_stream(iter));
}

at::Tensor dim_last(const at::Tensor& t, int64_t dim) { return t.dim() == 0 ? t.view({1}) : t.movedim(dim, -1); }

at::Tensor engine_scratch(c10::Device device, std::size_t bytes, void*& data) {
  data = nullptr;
  if (bytes == 0) return {};
  at::Tensor scratch = at::empty({static_cast<int64_t>(bytes)}, at::TensorOptions().dtype(at::kByte).device(device));
  data = scratch.data_ptr();
  return scratch;
}

void run_elementwise(at::TensorIteratorBase& iter, const ElementwiseCall& call) {
  if (iter.numel() == 0) return;
  kernel_engine(iter.device_type()).elementwise(call, describe(iter), current_stream(iter));
}

void fill_stubs(c10::DeviceType t) {
  namespace native = at::native;
#define TORCH_CORE_FILL(stub) set_slot(native::stub##_stub, t, &stub##_kernel);
  TORCH_CORE_FILL(sin) TORCH_CORE_FILL(cos) TORCH_CORE_FILL(tan) TORCH_CORE_FILL(asin) TORCH_CORE_FILL(acos)
  TORCH_CORE_FILL(atan) TORCH_CORE_FILL(sinh) TORCH_CORE_FILL(cosh) TORCH_CORE_FILL(tanh) TORCH_CORE_FILL(asinh)
  TORCH_CORE_FILL(acosh) TORCH_CORE_FILL(atanh) TORCH_CORE_FILL(exp) TORCH_CORE_FILL(exp2) TORCH_CORE_FILL(expm1)
  TORCH_CORE_FILL(log) TORCH_CORE_FILL(log10) TORCH_CORE_FILL(log1p) TORCH_CORE_FILL(log2) TORCH_CORE_FILL(sqrt)
  TORCH_CORE_FILL(rsqrt) TORCH_CORE_FILL(sigmoid) TORCH_CORE_FILL(erf) TORCH_CORE_FILL(erfc)
  TORCH_CORE_FILL(reciprocal) TORCH_CORE_FILL(lgamma) TORCH_CORE_FILL(ceil) TORCH_CORE_FILL(floor)
  TORCH_CORE_FILL(round) TORCH_CORE_FILL(trunc) TORCH_CORE_FILL(frac) TORCH_CORE_FILL(abs) TORCH_CORE_FILL(neg)
  TORCH_CORE_FILL(sign) TORCH_CORE_FILL(bitwise_not) TORCH_CORE_FILL(logical_not) TORCH_CORE_FILL(isneginf) TORCH_CORE_FILL(isposinf)
  TORCH_CORE_FILL(silu)
  TORCH_CORE_FILL(silu_backward) TORCH_CORE_FILL(sigmoid_backward) TORCH_CORE_FILL(tanh_backward)
  TORCH_CORE_FILL(add) TORCH_CORE_FILL(mul) TORCH_CORE_FILL(div_true) TORCH_CORE_FILL(div_floor)
  TORCH_CORE_FILL(div_trunc) TORCH_CORE_FILL(remainder) TORCH_CORE_FILL(fmod) TORCH_CORE_FILL(maximum)
  TORCH_CORE_FILL(minimum) TORCH_CORE_FILL(atan2) TORCH_CORE_FILL(pow_tensor_tensor)
  TORCH_CORE_FILL(pow_tensor_scalar) TORCH_CORE_FILL(bitwise_and) TORCH_CORE_FILL(bitwise_or)
  TORCH_CORE_FILL(bitwise_xor) TORCH_CORE_FILL(eq) TORCH_CORE_FILL(ne) TORCH_CORE_FILL(lt) TORCH_CORE_FILL(le)
  TORCH_CORE_FILL(gt) TORCH_CORE_FILL(ge) TORCH_CORE_FILL(logical_and) TORCH_CORE_FILL(logical_or)
  TORCH_CORE_FILL(logical_xor) TORCH_CORE_FILL(threshold) TORCH_CORE_FILL(leaky_relu) TORCH_CORE_FILL(leaky_relu_backward)
  TORCH_CORE_FILL(clamp)
  TORCH_CORE_FILL(clamp_scalar) TORCH_CORE_FILL(clamp_min_scalar) TORCH_CORE_FILL(clamp_max_scalar)
  TORCH_CORE_FILL(addcmul) TORCH_CORE_FILL(addcdiv)
  TORCH_CORE_FILL(sum) TORCH_CORE_FILL(nansum) TORCH_CORE_FILL(prod) TORCH_CORE_FILL(mean) TORCH_CORE_FILL(max_values)
  TORCH_CORE_FILL(min_values) TORCH_CORE_FILL(argmax) TORCH_CORE_FILL(argmin) TORCH_CORE_FILL(norm)
  TORCH_CORE_FILL(std_var) TORCH_CORE_FILL(max_all) TORCH_CORE_FILL(min_all) TORCH_CORE_FILL(max)
  TORCH_CORE_FILL(min) TORCH_CORE_FILL(flip) TORCH_CORE_FILL(fill) TORCH_CORE_FILL(aminmax)
  TORCH_CORE_FILL(aminmax_allreduce)
#undef TORCH_CORE_FILL
  // `and` and `or` are C++ operator spellings: no token pasting with them.
  set_slot(native::and_stub, t, &and_kernel);
  set_slot(native::or_stub, t, &or_kernel);
  // Stubs whose stock names do not end in _stub.
  set_slot(native::where_kernel, t, &where_kernel);
  set_slot(native::index_stub, t, &index_kernel);
  set_slot(native::index_put_stub, t, &index_put_kernel);
  set_slot(native::index_put_with_sort_stub, t, &index_put_with_sort_kernel);
  set_slot(native::lerp_kernel_scalar_weight, t, &lerp_scalar_kernel);
  set_slot(native::lerp_kernel_tensor_weight, t, &lerp_tensor_kernel);
  fill_random_stubs(t);
  fill_sort_stubs(t);
  fill_scan_stubs(t);
  fill_scatter_gather_stubs(t);
  fill_index_copy_stubs(t);
  fill_math_stubs(t);
  fill_activation_stubs(t);
  fill_loss_stubs(t);
  fill_isin_stub(t);
  fill_cross_stub(t);
  fill_unfold_backward_stub(t);
}

}  // namespace torch_core::engine
