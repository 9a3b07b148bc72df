// From one ElementwiseCall to a typed loop: picks the functor of call.op and the C++ type
// of call.compute, and hands both to an engine's executor. Written once; the host engine
// and the CUDA engine instantiate it with their executors, so both run the same functors
// with the same dtype coverage and the same error for a missing one.
//
// An Executor has `template <typename Functor> void run(const Functor&, const OperandLoop&)`
// and `const char* device_name()` ("cuda", "sim") for messages.
#pragma once

#include <tuple>
#include <type_traits>

#include <c10/core/ScalarType.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Exception.h>
#include <c10/util/Half.h>
#include <c10/util/complex.h>

#include "torch_core/csrc/aten/engine/elementwise_call.h"
#include "torch_core/csrc/aten/engine/elementwise_functors.h"
#include "torch_core/csrc/aten/engine/functor_traits.h"
#include "torch_core/csrc/aten/engine/operand_loop.h"

namespace torch_core::engine {

namespace detail {

// The type a functor is instantiated with for compute dtype T. Half and BFloat16 compute
// in float (opmath) and narrower integers in int64, storing through the output's dtype,
// which gives the same values (two's complement truncation commutes with +, -, *, bit
// operations and comparisons of in-range values), with a third of the instantiations:
// every engine compiles each functor for bool, int64, float, double and two complexes.
template <typename T>
using instance_t = std::conditional_t<
    kIsReducedFloat<T>, float, std::conditional_t<kIsInteger<T> && !std::is_same_v<T, int64_t>, int64_t, T>>;

template <template <typename> class F, typename T, typename Executor>
void run_typed(const ElementwiseCall& call, const OperandLoop& loop, Executor& executor) {
  if constexpr (F<T>::supported) {
    executor.run(F<instance_t<T>>::make(call), loop);
  } else {
    // AT_DISPATCH's message, so a missing dtype reads as it does on stock CUDA torch.
    TORCH_CHECK_NOT_IMPLEMENTED(false, '"', name_of(call.op), '_', executor.device_name(),
                                "\" not implemented for '", c10::toString(call.compute), "'");
  }
}

// Calls visit(T{}) with the C++ type of `dtype`, for the dtypes an engine computes in;
// false (nothing called) for any other. The one dtype switch of the engines (complex32's
// few operations aside, below).
template <typename Visit>
bool visit_dtype(c10::ScalarType dtype, Visit&& visit) {
  switch (dtype) {
    case c10::kBool: visit(bool{}); return true;
    case c10::kByte: visit(uint8_t{}); return true;
    case c10::kChar: visit(int8_t{}); return true;
    case c10::kShort: visit(int16_t{}); return true;
    case c10::kInt: visit(int32_t{}); return true;
    case c10::kLong: visit(int64_t{}); return true;
    case c10::kHalf: visit(c10::Half{}); return true;
    case c10::kBFloat16: visit(c10::BFloat16{}); return true;
    case c10::kFloat: visit(float{}); return true;
    case c10::kDouble: visit(double{}); return true;
    case c10::kComplexFloat: visit(c10::complex<float>{}); return true;
    case c10::kComplexDouble: visit(c10::complex<double>{}); return true;
    default: return false;
  }
}

// ComplexHalf (complex32): stock CUDA computes only a few elementwise operations in it
// (copies and flips, fill, conj, add, mul: what torch.fft's half transforms need). They run
// the complex<float> functor (opmath), each operand cast from complex32 on load and to it on
// store, so no engine compiles a kernel for it.
template <template <typename> class F>
inline constexpr bool kComplexHalfOp = false;
template <>
inline constexpr bool kComplexHalfOp<Identity> = true;
template <>
inline constexpr bool kComplexHalfOp<Fill> = true;
template <>
inline constexpr bool kComplexHalfOp<Conj> = true;
template <>
inline constexpr bool kComplexHalfOp<Add> = true;
template <>
inline constexpr bool kComplexHalfOp<Mul> = true;

template <template <typename> class F, typename Executor>
void run_dtype(const ElementwiseCall& call, const OperandLoop& loop, Executor& executor) {
  if constexpr (kComplexHalfOp<F>) {
    if (call.compute == c10::kComplexHalf) return executor.run(F<c10::complex<float>>::make(call), loop);
  }
  const bool known = visit_dtype(call.compute, [&](auto value) {
    run_typed<F, decltype(value)>(call, loop, executor);
  });
  TORCH_CHECK_NOT_IMPLEMENTED(known, '"', name_of(call.op), '_', executor.device_name(),
                              "\" not implemented for '", c10::toString(call.compute), "'");
}

}  // namespace detail

// Runs operation F (a functor template of elementwise_functors.h) in call.compute.
template <template <typename> class F, typename Executor>
void run_op(const ElementwiseCall& call, const OperandLoop& loop, Executor& executor) {
  detail::run_dtype<F>(call, loop, executor);
}

// Runs call.op: the whole table, for an engine that compiles every operation in one place.
template <typename Executor>
void dispatch_elementwise(const ElementwiseCall& call, const OperandLoop& loop, Executor& executor) {
  switch (call.op) {
#define TORCH_CORE_CASE(name) \
  case ElementwiseOp::k##name: return run_op<name>(call, loop, executor);
    TORCH_CORE_ELEMENTWISE_OPS(TORCH_CORE_CASE)
#undef TORCH_CORE_CASE
    case ElementwiseOp::kCount:
      break;
  }
  TORCH_INTERNAL_ASSERT(false, "unknown elementwise operation ", static_cast<int>(call.op));
}

}  // namespace torch_core::engine
