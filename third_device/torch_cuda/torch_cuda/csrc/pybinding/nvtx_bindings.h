// torch._C._nvtx for torch.cuda.nvtx: NVTX3's ranges and marks. NVTX3 is header-only and
// host-side in both variants: with no tool attached its calls do nothing (a push returns
// NVTX_NO_PUSH_POP_TRACKING, -2), and a profiler named by NVTX_INJECTION64_PATH (Nsight
// Systems) receives them. Device ranges start and end when a stream reaches them, through
// a host function on the stream, as stock's. The profiler's NVTX mode (emit_nvtx) pushes its
// ranges through NVTX3 too.
#pragma once

#include <pybind11/pybind11.h>

#include "torch_core/csrc/device/backend.h"

namespace torch_cuda {

void bind_nvtx(pybind11::module_& m, torch_core::Backend& backend);

}  // namespace torch_cuda
