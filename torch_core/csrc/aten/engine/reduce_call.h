// One reduction kernel call as a kernel engine receives it: stock's reduction stubs
// (sum_stub, mean_stub, argmax_stub, std_var_stub, ...) hand a TensorIterator in reduce
// mode, whose outputs have stride 0 along the reduced dimensions; the OperandLoop of it
// and this call are what an engine needs. reduce_functors.h has a functor per operation.
#pragma once

#include <c10/core/ScalarType.h>

namespace torch_core::engine {

#define TORCH_CORE_REDUCE_OPS(X) \
  X(Sum) X(NanSum) X(Prod) X(Mean) X(MaxValues) X(MinValues) X(ArgMax) X(ArgMin) X(All) X(Any) X(Norm) X(StdVar)

enum class ReduceOp {
#define TORCH_CORE_ENUM(name) k##name,
  TORCH_CORE_REDUCE_OPS(TORCH_CORE_ENUM)
#undef TORCH_CORE_ENUM
  kCount
};

struct ReduceCall {
  ReduceOp op;
  // The dtype the functor is instantiated for (the output's for sum-like reductions, the
  // input's for argmax, norm and var); the input is cast on load, outputs on store.
  c10::ScalarType compute;
  // Mean: the factor outputs / inputs; Norm: p; StdVar: the correction.
  double arg = 0;
  // StdVar: take the square root (std rather than var).
  bool flag = false;
  // The iterator's outputs (2 for var_mean / std_mean); the input is the operand after.
  int noutputs = 1;
};

const char* name_of(ReduceOp op);

}  // namespace torch_core::engine
