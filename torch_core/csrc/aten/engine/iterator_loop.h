// An ATen TensorIterator as an OperandLoop (operand_loop.h): the iterator has already
// broadcast, promoted, coalesced and permuted its operands; this only copies its shape,
// pointers, byte strides and dtypes (outermost dimension first, as kernel_loop.h walks).
#pragma once

#include <ATen/TensorIterator.h>

#include "torch_core/csrc/aten/engine/operand_loop.h"
#include "torch_core/csrc/runtime/runtime_handles.h"

namespace torch_core::engine {

OperandLoop describe(const at::TensorIteratorBase& iter);

// Where a kernel over `iter` queues: the current stream of its device (torch_core's
// stream registry of the device type's backend).
StreamHandle current_stream(const at::TensorIteratorBase& iter);
StreamHandle current_stream(c10::Device device);

}  // namespace torch_core::engine
