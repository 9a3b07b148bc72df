// One segmented inclusive scan as a kernel engine receives it (cumsum_stub's and
// cumprod_stub's kernels): `segments` contiguous runs of `segment_size` elements of
// `input`, each scanned into the same place of `output`, in dtype (the opmath type: the
// stub kernels convert Half and BFloat16 to float first, as stock's CUDA scans
// accumulate).
#pragma once

#include <cstddef>
#include <cstdint>

#include <c10/core/ScalarType.h>

namespace torch_core::engine {

enum class ScanOp { kSum, kProd };

struct ScanCall {
  ScanOp op = ScanOp::kSum;
  c10::ScalarType dtype = c10::kFloat;
  int64_t segments = 0;
  int64_t segment_size = 0;
  const char* input = nullptr;
  char* output = nullptr;
  // Device memory of the size the engine's scan_scratch_bytes asked for.
  void* scratch = nullptr;
  std::size_t scratch_bytes = 0;
};

}  // namespace torch_core::engine
