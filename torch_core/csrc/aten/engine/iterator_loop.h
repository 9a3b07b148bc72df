// An ATen TensorIterator as an OperandLoop (operand_loop.h): the iterator has already
// broadcast, promoted, coalesced and permuted its operands; this only copies its shape,
// pointers, byte strides and dtypes (outermost dimension first, as kernel_loop.h walks).
#pragma once

#include <ATen/TensorIterator.h>

#include "torch_core/aten/engine/operand_loop.h"

namespace torch_core::engine {

OperandLoop describe(const at::TensorIteratorBase& iter);

}  // namespace torch_core::engine
