// torch.cuda.memory._record_memory_history for a torch_core backend: the _CUDAC-style
// functions that start and stop the caching allocator's memory history and read it back
// (the trace per device, a live block's allocating stack), with Python stacks.
#pragma once

#include <pybind11/pybind11.h>

#include "torch_core/csrc/runtime/allocator_history.h"

namespace torch_core {

class Backend;

void bind_memory_history(pybind11::module_& m, Backend& backend);

// Frames as stock's snapshot lists them: [{"filename", "line", "name"}], innermost first;
// empty when none were recorded.
pybind11::list block_frames(const Traceback& frames);

}  // namespace torch_core
