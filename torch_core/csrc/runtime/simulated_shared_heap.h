// One simulated device's memory as a shared-memory file (memfd), so that another process
// can map an allocation of it: the simulated counterpart of CUDA IPC. Internal to the
// simulated runtime.
//
// The file is as large as the heap's address range but sparse: pages exist once touched,
// and a released range is punched out of the file, giving its pages back. What is not
// allocated is inaccessible, so stream work that touches it is caught as an illegal
// access (simulated_fault_guard.h). Ranges are page-aligned, first fit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

#include "torch_core/csrc/runtime/simulated_fault_guard.h"

namespace torch_core {

class SimulatedSharedHeap final : public simulated_faults::Protected {
 public:
  // Reserves `range_bytes` of address space; nothing is mapped until the first allocate().
  explicit SimulatedSharedHeap(std::size_t range_bytes) : range_(round_to_page(range_bytes)) {}
  ~SimulatedSharedHeap() override;
  SimulatedSharedHeap(const SimulatedSharedHeap&) = delete;
  SimulatedSharedHeap& operator=(const SimulatedSharedHeap&) = delete;

  // nullptr when no free range is large enough or the host refuses the file or mapping.
  void* allocate(std::size_t bytes);
  void release(void* ptr, std::size_t bytes);
  // Closes and empties every free range again (after a fault opened a page of one).
  void reprotect() override;

  // The file other processes open through /proc/<pid>/fd/<fd> (-1 when the host refused
  // to make one: the memory is then private), and where `ptr` lies in it.
  int fd() const { return fd_; }
  std::size_t offset_of(const void* ptr) const {
    return static_cast<std::size_t>(static_cast<const char*>(ptr) - base_);
  }

  static std::size_t page_size();
  static std::size_t round_to_page(std::size_t bytes);

 private:
  bool map_locked();  // creates the file and the mapping; false when the host refuses
  void close_locked(std::size_t offset, std::size_t length);  // empties and protects a free range

  const std::size_t range_;
  std::mutex mutex_;
  int fd_ = -1;
  char* base_ = nullptr;
  std::map<std::size_t, std::size_t> free_;  // offset -> length, coalesced
};

}  // namespace torch_core
