// One advanced-indexing kernel call (index_stub, index_put_stub, and gather/scatter's
// stubs, whose iterators have the same shape with one index tensor) as a kernel engine
// receives it. The iterator has been built by stock ATen: for a gather (x[i, j]) its
// operands are the output, the source restrided with stride 0 along the indexed
// dimensions, and the index tensors; for a put (x[i, j] = v) the restrided destination,
// the values, and the index tensors. An element's byte offset along the indexed
// dimensions is the sum over k of index_k * strides[k], each index checked against
// sizes[k] (negative ones wrap), as stock's index kernels do.
#pragma once

#include <cstdint>

namespace torch_core::engine {

constexpr int kMaxIndices = 4;

enum class IndexKind { kGather, kPut, kAccumulate };

struct IndexCall {
  IndexKind kind = IndexKind::kGather;
  int nindices = 0;
  // Plain arrays: the struct is a GPU kernel's argument.
  int64_t sizes[kMaxIndices] = {};
  int64_t strides[kMaxIndices] = {};  // bytes
  // Advanced indexing wraps a negative index once; gather and scatter refuse it.
  bool wrap_negative = true;
};

}  // namespace torch_core::engine
