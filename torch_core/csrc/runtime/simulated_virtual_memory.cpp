#include "torch_core/csrc/runtime/simulated_virtual_memory.h"

#include <sys/mman.h>

#include <iterator>
#include <string>

#include "torch_core/csrc/runtime/device_runtime.h"
#include "torch_core/csrc/runtime/pointer_text.h"

namespace torch_core {
namespace {

std::string range_text(std::uintptr_t address, std::size_t bytes) {
  return "[" + pointer_text(reinterpret_cast<const void*>(address)) + ", +" + std::to_string(bytes) + " bytes)";
}

}  // namespace

SimulatedVirtualMemory::~SimulatedVirtualMemory() {
  for (const auto& [start, bytes] : mappings_) capacity_.uncharge(bytes);
  for (const auto& [base, bytes] : reservations_) {
    simulated_faults::unwatch(reinterpret_cast<void*>(base));
    munmap(reinterpret_cast<void*>(base), bytes);
  }
}

void SimulatedVirtualMemory::check_granular(std::uintptr_t address, std::size_t bytes, const char* call) const {
  if (bytes == 0 || bytes % kGranularity != 0 || address % kGranularity != 0) {
    throw RuntimeError(std::string(call) + ": the range " + range_text(address, bytes) +
                       " is not a non-empty multiple of the granularity (" + std::to_string(kGranularity) +
                       " bytes) at an address aligned to it");
  }
}

std::map<std::uintptr_t, std::size_t>::const_iterator SimulatedVirtualMemory::reservation_of(
    std::uintptr_t address, std::size_t bytes) const {
  auto it = reservations_.upper_bound(address);
  if (it == reservations_.begin()) return reservations_.end();
  --it;
  const std::uintptr_t offset = address - it->first;
  return offset < it->second && bytes <= it->second - offset ? it : reservations_.end();
}

void* SimulatedVirtualMemory::reserve(std::size_t bytes, const char* call) {
  check_granular(0, bytes, call);
  // Over-reserve by one granule so the start can be aligned, then trim both ends.
  const std::size_t span = bytes + kGranularity;
  void* raw = mmap(nullptr, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (raw == MAP_FAILED) {
    throw RuntimeError(std::string(call) + ": the host refused " + std::to_string(bytes) +
                       " bytes of address space; reserve less");
  }
  const auto start = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t base = (start + kGranularity - 1) / kGranularity * kGranularity;
  if (base > start) munmap(raw, base - start);
  const std::uintptr_t end = start + span;
  if (end > base + bytes) munmap(reinterpret_cast<void*>(base + bytes), end - (base + bytes));
  {
    std::lock_guard<std::mutex> lock(mutex_);
    reservations_.emplace(base, bytes);
  }
  // Outside the lock: a fault's recovery takes the watch list's lock, then this one.
  simulated_faults::watch(reinterpret_cast<void*>(base), bytes, this);
  return reinterpret_cast<void*>(base);
}

void SimulatedVirtualMemory::release(void* base, std::size_t bytes, const char* call) {
  const auto address = reinterpret_cast<std::uintptr_t>(base);
  std::unique_lock<std::mutex> lock(mutex_);
  const auto it = reservations_.find(address);
  if (it == reservations_.end() || it->second != bytes) {
    throw RuntimeError(std::string(call) + ": " + range_text(address, bytes) +
                       " is not a reservation that vm_reserve() made (base and size must match)");
  }
  const auto mapped = mappings_.lower_bound(address);
  if (mapped != mappings_.end() && mapped->first < address + bytes) {
    throw RuntimeError(std::string(call) + ": the reservation " + range_text(address, bytes) +
                       " still has memory mapped at " + range_text(mapped->first, mapped->second) +
                       "; vm_unmap() it first");
  }
  reservations_.erase(it);
  lock.unlock();
  simulated_faults::unwatch(base);
  munmap(base, bytes);
}

bool SimulatedVirtualMemory::map(void* ptr, std::size_t bytes, const char* call) {
  const auto address = reinterpret_cast<std::uintptr_t>(ptr);
  check_granular(address, bytes, call);
  std::lock_guard<std::mutex> lock(mutex_);
  if (reservation_of(address, bytes) == reservations_.end()) {
    throw RuntimeError(std::string(call) + ": the range " + range_text(address, bytes) +
                       " is not inside one reservation of this device; vm_reserve() it first");
  }
  auto next = mappings_.lower_bound(address);
  const bool overlaps_next = next != mappings_.end() && next->first < address + bytes;
  const bool overlaps_previous =
      next != mappings_.begin() && std::prev(next)->first + std::prev(next)->second > address;
  if (overlaps_next || overlaps_previous) {
    throw RuntimeError(std::string(call) + ": the range " + range_text(address, bytes) +
                       " is mapped already, in part or whole; vm_unmap() it before mapping it again");
  }
  if (!capacity_.charge(bytes)) return false;
  if (mprotect(ptr, bytes, PROT_READ | PROT_WRITE) != 0) {
    capacity_.uncharge(bytes);
    return false;
  }
  mappings_.emplace(address, bytes);
  return true;
}

void SimulatedVirtualMemory::unmap(void* ptr, std::size_t bytes, const char* call) {
  const auto address = reinterpret_cast<std::uintptr_t>(ptr);
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = mappings_.find(address);
  if (it == mappings_.end() || it->second != bytes) {
    throw RuntimeError(std::string(call) + ": " + range_text(address, bytes) +
                       " is not a range that one vm_map() mapped (start and size must match)");
  }
  // The pages go back to the host, and the range faults again when touched.
  madvise(ptr, bytes, MADV_DONTNEED);
  mprotect(ptr, bytes, PROT_NONE);
  mappings_.erase(it);
  capacity_.uncharge(bytes);
}

void SimulatedVirtualMemory::reprotect() {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto close = [](std::uintptr_t from, std::uintptr_t to) {
    if (to <= from) return;
    madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
    mprotect(reinterpret_cast<void*>(from), to - from, PROT_NONE);
  };
  for (const auto& [base, bytes] : reservations_) {
    std::uintptr_t from = base;
    for (auto it = mappings_.lower_bound(base); it != mappings_.end() && it->first < base + bytes; ++it) {
      close(from, it->first);
      from = it->first + it->second;
    }
    close(from, base + bytes);
  }
}

bool SimulatedVirtualMemory::contains(const void* ptr, std::size_t bytes) const {
  std::uintptr_t address = reinterpret_cast<std::uintptr_t>(ptr);
  const std::uintptr_t end = address + bytes;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = mappings_.upper_bound(address);
  if (it == mappings_.begin()) return false;
  --it;
  while (it != mappings_.end() && it->first <= address) {
    const std::uintptr_t mapping_end = it->first + it->second;
    if (mapping_end <= address) return false;
    if (mapping_end >= end) return true;
    address = mapping_end;  // continues in the adjacent mapping, if there is one
    ++it;
  }
  return false;
}

}  // namespace torch_core
