// Memory pools and pluggable allocators for a torch_core backend's Python module (stock:
// torch/csrc/cuda/MemPool.cpp, CUDAPluggableAllocator.cpp and the pool functions of
// Module.cpp): the _MemPool class torch.cuda.MemPool derives from, routing a thread's or
// every stream's allocations to a pool, a pool's live allocations, and _Allocator, the
// handle of an allocator made from a shared library's alloc/free functions, which a
// MemPool takes its segments from or which replaces the caching allocator.
#pragma once

#include <pybind11/pybind11.h>

namespace torch_core {

class Backend;

void bind_pools(pybind11::module_& m, Backend& backend);

}  // namespace torch_core
