// The check every extension kernel entry makes before it runs a functor over an iterator:
// one output, and one input per argument of the functor (host_kernel.h, torch_cuda's
// gpu_kernel.h).
#pragma once

#include <ATen/TensorIterator.h>
#include <c10/util/Exception.h>

#include "torch_core/csrc/aten/engine/functor_traits.h"

namespace torch_core::extension {

template <typename F>
void check_operands(const at::TensorIteratorBase& iter, const char* kernel) {
  constexpr int arity = engine::functor_traits<F>::arity;
  TORCH_CHECK(iter.noutputs() == 1 && iter.ninputs() == arity, kernel, ": the functor takes ", arity,
              " inputs and writes one output; the iterator has ", iter.ninputs(), " inputs and ", iter.noutputs(),
              " outputs");
}

}  // namespace torch_core::extension
