// From one ReduceCall to a typed reduction: the functor of call.op for call.compute, with
// the executor's accumulation type, handed to the executor. Written once for every
// engine, as elementwise_dispatch.h. An Executor has
//   template <typename T> using acc_t = ...;            (reduce_acc_t<T, on_device>)
//   template <typename R> void run_reduce(const R&, const OperandLoop&, int noutputs);
//   const char* device_name();
#pragma once

#include <type_traits>

#include <c10/core/ScalarType.h>
#include <c10/util/Exception.h>

#include "torch_core/csrc/aten/engine/elementwise_dispatch.h"
#include "torch_core/csrc/aten/engine/operand_loop.h"
#include "torch_core/csrc/aten/engine/reduce_call.h"
#include "torch_core/csrc/aten/engine/reduce_functors.h"

namespace torch_core::engine {

// The input element type a reduction functor folds: the second parameter of reduce().
template <typename F>
struct reduce_traits : reduce_traits<decltype(&F::reduce)> {};
template <typename C, typename A, typename X>
struct reduce_traits<A (C::*)(A, X, int64_t) const> {
  using acc = A;
  using input = X;
};

namespace detail {

template <template <typename, typename> class F, typename T, typename Executor>
void run_reduce_typed(const ReduceCall& call, const OperandLoop& loop, Executor& executor) {
  using Instance = instance_t<T>;
  using Acc = typename Executor::template acc_t<Instance>;
  if constexpr (F<T, Acc>::supported) {
    executor.run_reduce(F<Instance, Acc>::make(call), loop, call.noutputs);
  } else {
    TORCH_CHECK_NOT_IMPLEMENTED(false, '"', name_of(call.op), '_', executor.device_name(),
                                "\" not implemented for '", c10::toString(call.compute), "'");
  }
}

}  // namespace detail

template <template <typename, typename> class F, typename Executor>
void run_reduce_op(const ReduceCall& call, const OperandLoop& loop, Executor& executor) {
  const bool known = detail::visit_dtype(call.compute, [&](auto value) {
    detail::run_reduce_typed<F, decltype(value)>(call, loop, executor);
  });
  TORCH_CHECK_NOT_IMPLEMENTED(known, '"', name_of(call.op), '_', executor.device_name(),
                              "\" not implemented for '", c10::toString(call.compute), "'");
}

// Runs call.op: the whole table, for an engine that compiles every reduction in one place.
template <typename Executor>
void dispatch_reduce(const ReduceCall& call, const OperandLoop& loop, Executor& executor) {
  switch (call.op) {
#define TORCH_CORE_CASE(name) \
  case ReduceOp::k##name: return run_reduce_op<name##Reduce>(call, loop, executor);
    TORCH_CORE_REDUCE_OPS(TORCH_CORE_CASE)
#undef TORCH_CORE_CASE
    case ReduceOp::kCount:
      break;
  }
  TORCH_INTERNAL_ASSERT(false, "unknown reduction ", static_cast<int>(call.op));
}

}  // namespace torch_core::engine
