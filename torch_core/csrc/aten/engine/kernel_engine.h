// A kernel engine: what runs torch_core's stub kernels (stub_kernels.cpp) on a backend's
// device. Stock ATen's operators build a TensorIterator and call a DispatchStub; the stub
// kernel describes the iterator (operand_loop.h) and hands the engine of the iterator's
// device type one call. torch_core's host engine serves devices whose memory the host
// addresses (host_engine.h); torch_cuda's CUDA engine launches GPU kernels. Both expand
// the same functors through elementwise_dispatch.h.
#pragma once

#include <c10/core/DeviceType.h>

#include "torch_core/csrc/aten/engine/elementwise_call.h"
#include "torch_core/csrc/aten/engine/index_call.h"
#include "torch_core/csrc/aten/engine/operand_loop.h"
#include "torch_core/csrc/aten/engine/random_call.h"
#include "torch_core/csrc/aten/engine/reduce_call.h"
#include "torch_core/csrc/aten/engine/scan_call.h"
#include "torch_core/csrc/aten/engine/sort_call.h"
#include "torch_core/csrc/runtime/runtime_handles.h"

namespace torch_core::engine {

class KernelEngine {
 public:
  virtual ~KernelEngine() = default;
  // Queues `call` over `loop` on `stream` (the current stream of the iterator's device,
  // which the stub kernels look up), in stream order; raises, queueing nothing, for a dtype
  // the operation does not have.
  virtual void elementwise(const ElementwiseCall& call, const OperandLoop& loop, StreamHandle stream) = 0;
  // The same for a reduction: `loop` is a reduce-mode iterator's (outputs first, with
  // stride 0 along the reduced dimensions, then the input); at least one input element.
  virtual void reduce(const ReduceCall& call, const OperandLoop& loop, StreamHandle stream) = 0;
  // Advanced indexing (index_call.h). An index out of range raises stock's IndexError
  // from the kernel: like a device-side assert, at the next synchronisation.
  virtual void index(const IndexCall& call, const OperandLoop& loop, StreamHandle stream) = 0;
  // Random numbers into operand 0 (random_call.h); operand 1, if any, is the
  // distribution's per-element parameter (bernoulli_'s p).
  virtual void random(const RandomCall& call, const OperandLoop& loop, StreamHandle stream) = 0;
  // Device scratch memory `sort` needs for `call` (its buffers not yet set), and the sort
  // itself (sort_call.h).
  virtual std::size_t sort_scratch_bytes(const SortCall& call) = 0;
  virtual void sort(const SortCall& call, StreamHandle stream) = 0;
  // The same pair for a segmented inclusive scan (scan_call.h).
  virtual std::size_t scan_scratch_bytes(const ScanCall& call) = 0;
  virtual void scan(const ScanCall& call, StreamHandle stream) = 0;
};

// Registers `engine` (which must live for the rest of the process) for `device_type` and
// fills every stub's slot for that device type with torch_core's stub kernels.
void register_kernel_engine(c10::DeviceType device_type, KernelEngine* engine);
// The engine of `device_type`; raises naming the type when none is registered.
KernelEngine& kernel_engine(c10::DeviceType device_type);

}  // namespace torch_core::engine
