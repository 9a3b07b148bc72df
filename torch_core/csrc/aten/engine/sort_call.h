// One segmented sort as a kernel engine receives it (sort_stub's kernel and what builds on
// it: sort, argsort, topk): `segments` contiguous runs of `segment_size` keys, each sorted
// in place, stably, with the permutation written beside it. NaN sorts above every number
// (last ascending, first descending), as stock's sort.
#pragma once

#include <cstddef>
#include <cstdint>

#include <c10/core/ScalarType.h>

namespace torch_core::engine {

struct SortCall {
  c10::ScalarType dtype;
  bool descending = false;
  int64_t segments = 0;
  int64_t segment_size = 0;
  char* keys = nullptr;        // segments * segment_size elements of dtype, sorted in place
  int64_t* indices = nullptr;  // out: each sorted key's position in its segment before
  // segments + 1 element offsets (i * segment_size), on the device, for engines whose
  // library sorts segments by offsets (CUB's).
  const int64_t* segment_offsets = nullptr;
  // Device memory of the size the engine's sort_scratch_bytes asked for.
  void* scratch = nullptr;
  std::size_t scratch_bytes = 0;
};

}  // namespace torch_core::engine
