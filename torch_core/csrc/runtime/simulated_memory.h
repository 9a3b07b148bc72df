// Host memory standing in for one simulated device's memory (or for pinned host memory):
// aligned blocks tracked against a capacity, so that bad pointers and ranges are caught.
// A device's pool keeps its blocks in a shared-memory heap that other processes can map
// (IPC), and also knows the blocks it mapped from other processes. Internal to the
// simulated runtime.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

#include "torch_core/csrc/runtime/simulated_shared_heap.h"

namespace torch_core {

class SimulatedMemoryPool {
 public:
  // cudaMalloc guarantees 256-byte alignment; 512 is stricter, so code that works here
  // never relies on more than CUDA gives. Sizes are accounted rounded up to it.
  static constexpr std::size_t kAlignment = 512;

  // `shared`: blocks come from a SimulatedSharedHeap (device memory), else from malloc.
  explicit SimulatedMemoryPool(std::size_t capacity_bytes, bool shared = false);
  ~SimulatedMemoryPool();  // releases what is still allocated
  SimulatedMemoryPool(const SimulatedMemoryPool&) = delete;
  SimulatedMemoryPool& operator=(const SimulatedMemoryPool&) = delete;

  // nullptr when the block would take the pool past its capacity (or the host is out
  // of memory). Zero bytes gives nullptr too, as cudaMalloc(0) does.
  void* allocate(std::size_t bytes);
  // False when `ptr` is not the start of a live block of this pool.
  bool release(void* ptr);
  // True when `ptr` is the start of a live block (not one mapped from another process).
  bool owns(const void* ptr) const;

  // Where the live block starting at `ptr` lies in the shared heap, for an IPC handle;
  // false when `ptr` is not the start of a live block of a shared pool.
  struct SharedLocation {
    int fd;
    std::size_t offset;
    std::size_t bytes;
  };
  bool locate_shared(const void* ptr, SharedLocation* out) const;
  // Memory of this device mapped from another process: valid for contains() until
  // forget(), never charged to the capacity nor released by release().
  void adopt(void* ptr, std::size_t bytes);
  bool forget(void* ptr);
  // True when [ptr, ptr + bytes) lies inside one live block (interior pointers count:
  // a caching allocator hands out pieces of its blocks).
  bool contains(const void* ptr, std::size_t bytes) const;

  std::size_t capacity() const { return capacity_; }
  std::size_t used() const;
  // Counts `bytes` of memory held elsewhere (virtual memory mappings) against the
  // capacity; false, charging nothing, when that would pass it.
  bool charge(std::size_t bytes);
  void uncharge(std::size_t bytes);

 private:
  struct Block {
    std::size_t requested = 0;  // what a range check allows
    std::size_t rounded = 0;    // what the capacity is charged
    bool adopted = false;       // mapped from another process
  };

  const std::size_t capacity_;
  const std::unique_ptr<SimulatedSharedHeap> heap_;  // null: blocks from malloc
  mutable std::mutex mutex_;
  std::size_t used_ = 0;
  std::map<std::uintptr_t, Block> blocks_;  // by start address, for containment lookups
};

}  // namespace torch_core
