// A C++ extension's elementwise kernel on a device whose memory the host addresses (a
// simulated device): the extension's functor, compiled by the host compiler, queued on the
// current stream of the iterator's device through that device type's host engine, in
// stream order with the backend's own kernels. Backend-generic: torch_cuda's simulated
// variant and torch_sim run extensions' kernels through it (torch_cuda's gpu_kernel.h).
#pragma once

#include <ATen/TensorIterator.h>

#include "torch_core/csrc/aten/engine/host_elementwise_loop.h"
#include "torch_core/csrc/aten/engine/host_engine.h"
#include "torch_core/csrc/aten/engine/iterator_loop.h"
#include "torch_core/csrc/extension/kernel_operands.h"

namespace torch_core::extension {

// out = f(in...) over `iter` (one output, then one input per argument of f), each input
// cast from its dtype to f's argument type and the result to the output's dtype.
template <typename F>
void host_kernel(at::TensorIteratorBase& iter, const F& f) {
  check_operands<F>(iter, "host_kernel");
  const HostLaunch launch = engine::host_launch(iter.device_type());
  if (iter.numel() == 0) return;
  // Copied into the work item: the iterator (and any host scalar it points to) is gone
  // when the stream's worker runs it.
  launch(engine::current_stream(iter), [f, work = engine::describe(iter)]() mutable {
    work.bind_scalars();
    engine::host_elementwise_loop(f, work);
  });
}

}  // namespace torch_core::extension
