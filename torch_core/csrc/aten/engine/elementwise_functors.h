// The functors of the elementwise operations (elementwise_call.h), written once for the
// host engine and the CUDA engine (TORCH_CORE_HOST_DEVICE). Each is a template over the
// compute dtype T with:
//   supported     whether stock CUDA torch has the operation for T (otherwise the stub
//                 raises "<op>_cuda" not implemented for '<dtype>', as AT_DISPATCH does)
//   make(call)    the functor with its scalar arguments (host side)
//   operator()    element values in, one value out; Half and BFloat16 compute in float
//                 (opmath), as stock's CUDA kernels do. The engines cast each operand
//                 from its own dtype on load and the result to the output's on store.
// Semantics follow stock's CUDA kernels (NaN propagation of max/min/clamp, floor
// division and remainder signs, integer powers); integer division by zero and
// INT_MIN / -1 give a value instead of trapping the host.
//
// The functors live by group in unary_functors.h, activation_functors.h,
// nn_activation_functors.h, binary_functors.h, binary_math_functors.h,
// special_functors.h (special functions and polynomials), loss_functors.h and
// pointwise_functors.h
// (elementwise_call.h's groups), over functor_types.h's type vocabulary.
#pragma once

#include "torch_core/csrc/aten/engine/activation_functors.h"
#include "torch_core/csrc/aten/engine/binary_functors.h"
#include "torch_core/csrc/aten/engine/binary_math_functors.h"
#include "torch_core/csrc/aten/engine/functor_types.h"
#include "torch_core/csrc/aten/engine/loss_functors.h"
#include "torch_core/csrc/aten/engine/nn_activation_functors.h"
#include "torch_core/csrc/aten/engine/pointwise_functors.h"
#include "torch_core/csrc/aten/engine/special_functors.h"
#include "torch_core/csrc/aten/engine/unary_functors.h"
