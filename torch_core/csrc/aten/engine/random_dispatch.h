// From one RandomCall to a typed loop (as elementwise_dispatch.h for ElementwiseCall):
// the distribution's functor for the call's dtype, handed to an engine's executor.
//
// An Executor has `template <typename F> void run_random(const F&, const OperandLoop&,
// const RandomCall&)`: element i (in iteration order) draws from
// PhiloxDraws(call.seed, i, call.offset); the functor's result is stored as operand 0's
// dtype, and its second argument, if any, is operand 1 loaded as that argument's type.
#pragma once

#include <c10/util/Exception.h>

#include "torch_core/csrc/aten/engine/elementwise_dispatch.h"
#include "torch_core/csrc/aten/engine/operand_loop.h"
#include "torch_core/csrc/aten/engine/random_call.h"
#include "torch_core/csrc/aten/engine/random_functors.h"

namespace torch_core::engine {

template <template <typename> class F, typename Executor>
void run_random_op(const RandomCall& call, const OperandLoop& loop, Executor& executor) {
  bool supported = false;
  const bool known = detail::visit_dtype(call.dtype, [&](auto value) {
    using T = decltype(value);
    if constexpr (F<T>::supported) {
      supported = true;
      executor.run_random(F<T>::make(call), loop, call);
    }
  });
  TORCH_CHECK_NOT_IMPLEMENTED(known && supported, '"', name_of(call.op), '_', executor.device_name(),
                              "\" not implemented for '", c10::toString(call.dtype), "'");
}

template <typename Executor>
void dispatch_random(const RandomCall& call, const OperandLoop& loop, Executor& executor) {
  switch (call.op) {
#define TORCH_CORE_CASE(name) \
  case RandomOp::k##name: return run_random_op<name>(call, loop, executor);
    TORCH_CORE_RANDOM_OPS(TORCH_CORE_CASE)
#undef TORCH_CORE_CASE
    case RandomOp::kCount:
      break;
  }
  TORCH_INTERNAL_ASSERT(false, "unknown random operation ", static_cast<int>(call.op));
}

}  // namespace torch_core::engine
