// One simulated device's virtual memory management (CUDA's cuMemAddressReserve,
// cuMemCreate + cuMemMap, cuMemUnmap): host address space reserved inaccessible, and
// ranges of it made readable and writable while mapped, their bytes charged to the
// device's capacity. Stream work that touches a reserved range that is not mapped is an
// illegal access, as on a GPU (simulated_fault_guard.h). Internal to the simulated runtime.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

#include "torch_core/csrc/runtime/simulated_fault_guard.h"
#include "torch_core/csrc/runtime/simulated_memory.h"

namespace torch_core {

class SimulatedVirtualMemory final : public simulated_faults::Protected {
 public:
  // CUDA's minimum granularity on current GPUs; a stricter unit than the host's pages.
  static constexpr std::size_t kGranularity = std::size_t{2} << 20;

  // Mapped bytes are charged to `capacity`, which outlives this.
  explicit SimulatedVirtualMemory(SimulatedMemoryPool& capacity) : capacity_(capacity) {}
  ~SimulatedVirtualMemory() override;  // gives back every reservation, mapped or not
  SimulatedVirtualMemory(const SimulatedVirtualMemory&) = delete;
  SimulatedVirtualMemory& operator=(const SimulatedVirtualMemory&) = delete;

  // Each throws RuntimeError naming `call` and the broken rule: sizes and addresses not
  // multiples of kGranularity, ranges outside a reservation, mapping twice, unmapping
  // what one map() did not map, releasing a reservation with mappings.
  void* reserve(std::size_t bytes, const char* call);
  void release(void* base, std::size_t bytes, const char* call);
  // False when the capacity has no room for `bytes` more.
  bool map(void* ptr, std::size_t bytes, const char* call);
  void unmap(void* ptr, std::size_t bytes, const char* call);

  // True when [ptr, ptr + bytes) is mapped throughout (several adjacent mappings count).
  bool contains(const void* ptr, std::size_t bytes) const;
  // Closes and empties every unmapped range again (after a fault opened a page of one).
  void reprotect() override;

 private:
  void check_granular(std::uintptr_t address, std::size_t bytes, const char* call) const;
  // The reservation holding [address, address + bytes), or reservations_.end().
  std::map<std::uintptr_t, std::size_t>::const_iterator reservation_of(std::uintptr_t address,
                                                                       std::size_t bytes) const;

  SimulatedMemoryPool& capacity_;
  mutable std::mutex mutex_;
  std::map<std::uintptr_t, std::size_t> reservations_;  // base -> bytes
  std::map<std::uintptr_t, std::size_t> mappings_;      // start -> bytes, as map() made them
};

}  // namespace torch_core
