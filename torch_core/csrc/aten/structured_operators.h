// The functional and in-place overloads of stock's structured operators (those whose out=
// overload has a CUDA kernel), generated from the pinned wheel's native_functions.yaml.
//
// Stock registers them on CompositeExplicitAutogradNonFunctional too: "default backend"
// kernels that run the meta function, allocate the outputs on the input's device and
// call the out= overload. On a key with no kernel of its own for one, that alias kernel
// wins over the boxed CPU fallback: it skips the device check stock's per-backend wrapper
// makes (a CPU operand trips an internal assert where stock raises "Expected all tensors
// to be on the same device") and round-trips the outputs through the out= overload's
// fallback. So the fallback is registered for them by name (cpu_fallback.cpp), unless the
// key has a kernel for the group's out= overload: then the default-backend kernel runs it.
#pragma once

#include <vector>

#include <ATen/core/operator_name.h>

namespace torch_core {

struct StructuredOverload {
  c10::OperatorName name;  // aten::add_.Tensor
  c10::OperatorName out;   // its group's out= overload: aten::add.out
};

const std::vector<StructuredOverload>& structured_operators();

}  // namespace torch_core
