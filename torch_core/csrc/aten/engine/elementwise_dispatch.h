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

#include "torch_core/aten/engine/elementwise_call.h"
#include "torch_core/aten/engine/elementwise_functors.h"
#include "torch_core/aten/engine/operand_loop.h"

namespace torch_core::engine {

// A functor's result and argument types, read off its operator().
template <typename F>
struct functor_traits : functor_traits<decltype(&F::operator())> {};
template <typename C, typename R, typename... A>
struct functor_traits<R (C::*)(A...) const> {
  using result = R;
  using args = std::tuple<A...>;
  static constexpr int arity = sizeof...(A);
};

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

template <template <typename> class F, typename Executor>
void run_dtype(const ElementwiseCall& call, const OperandLoop& loop, Executor& executor) {
  switch (call.compute) {
    case c10::kBool: return run_typed<F, bool>(call, loop, executor);
    case c10::kByte: return run_typed<F, uint8_t>(call, loop, executor);
    case c10::kChar: return run_typed<F, int8_t>(call, loop, executor);
    case c10::kShort: return run_typed<F, int16_t>(call, loop, executor);
    case c10::kInt: return run_typed<F, int32_t>(call, loop, executor);
    case c10::kLong: return run_typed<F, int64_t>(call, loop, executor);
    case c10::kHalf: return run_typed<F, c10::Half>(call, loop, executor);
    case c10::kBFloat16: return run_typed<F, c10::BFloat16>(call, loop, executor);
    case c10::kFloat: return run_typed<F, float>(call, loop, executor);
    case c10::kDouble: return run_typed<F, double>(call, loop, executor);
    case c10::kComplexFloat: return run_typed<F, c10::complex<float>>(call, loop, executor);
    case c10::kComplexDouble: return run_typed<F, c10::complex<double>>(call, loop, executor);
    default:
      TORCH_CHECK_NOT_IMPLEMENTED(false, '"', name_of(call.op), '_', executor.device_name(),
                                  "\" not implemented for '", c10::toString(call.compute), "'");
  }
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
