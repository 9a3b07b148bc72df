// Device memory from somewhere other than the runtime: the functions of a pluggable
// allocator (torch.cuda.memory.CUDAPluggableAllocator: `alloc_fn(size, device, stream)`
// and `free_fn(ptr, size, device, stream)` from a shared library). It serves either every
// request of a device type (change_current_allocator), or the segments of one private
// pool (torch.cuda.MemPool(allocator=...)), which the caching allocator then splits and
// caches as it does the runtime's.
#pragma once

#include <cstddef>
#include <functional>

#include "torch_core/csrc/runtime/device_runtime.h"

namespace torch_core {

struct SegmentSource {
  // At least `bytes` bytes on `device`, for use on `stream`; nullptr when out of memory.
  std::function<void*(std::size_t bytes, int device, StreamHandle stream)> allocate;
  // Gives back what allocate() returned, with the same size, device and stream.
  std::function<void(void* ptr, std::size_t bytes, int device, StreamHandle stream)> free;
};

}  // namespace torch_core
