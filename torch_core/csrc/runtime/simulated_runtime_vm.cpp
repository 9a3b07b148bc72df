// SimulatedRuntime's virtual memory calls: reservations and mappings per device
// (simulated_virtual_memory.h), with the device checks and ordering of free().
#include "torch_core/csrc/runtime/simulated_runtime.h"

#include "torch_core/csrc/runtime/simulated_virtual_memory.h"

namespace torch_core {

std::size_t SimulatedRuntime::vm_granularity(int device) {
  check_device(device, "vm_granularity");
  return SimulatedVirtualMemory::kGranularity;
}

void* SimulatedRuntime::vm_reserve(int device, std::size_t bytes) {
  check_not_forked("vm_reserve");
  check_device(device, "vm_reserve");
  return devices_[static_cast<std::size_t>(device)].virtual_memory->reserve(bytes, "vm_reserve");
}

void SimulatedRuntime::vm_release(int device, void* base, std::size_t bytes) {
  check_device(device, "vm_release");
  devices_[static_cast<std::size_t>(device)].virtual_memory->release(base, bytes, "vm_release");
}

bool SimulatedRuntime::vm_map(int device, void* ptr, std::size_t bytes) {
  check_not_forked("vm_map");
  check_device(device, "vm_map");
  return devices_[static_cast<std::size_t>(device)].virtual_memory->map(ptr, bytes, "vm_map");
}

void SimulatedRuntime::vm_unmap(int device, void* ptr, std::size_t bytes) {
  check_device(device, "vm_unmap");
  refuse_unsafe_call(-1, "vm_unmap");
  // As free(): queued work may still read or write the range.
  drain(streams_of(device));
  devices_[static_cast<std::size_t>(device)].virtual_memory->unmap(ptr, bytes, "vm_unmap");
}

}  // namespace torch_core
