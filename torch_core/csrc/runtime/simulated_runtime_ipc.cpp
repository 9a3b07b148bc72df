// SimulatedRuntime's interprocess sharing: handles to device allocations and events that
// another process opens (simulated_ipc.h), with the rules cudart has for them.
#include <unistd.h>

#include <memory>
#include <string>

#include "torch_core/csrc/runtime/pointer_text.h"
#include "torch_core/csrc/runtime/simulated_event.h"
#include "torch_core/csrc/runtime/simulated_ipc.h"
#include "torch_core/csrc/runtime/simulated_memory.h"
#include "torch_core/csrc/runtime/simulated_runtime.h"
#include "torch_core/csrc/runtime/simulated_stream.h"

namespace torch_core {
namespace {

// CUDA refuses to open a handle in the process (context) that made it; two runtimes in
// one process stand for two processes here, which is how the runtime's tests share.
void refuse_own_handle(int pid, std::uint64_t runtime, std::uint64_t own_runtime, const char* call) {
  if (pid == static_cast<int>(getpid()) && runtime == own_runtime) {
    throw RuntimeError(std::string(call) + ": the handle was made by this runtime; use the memory or event "
                       "itself (as CUDA, a process cannot open its own IPC handle)");
  }
}

}  // namespace

std::string SimulatedRuntime::ipc_memory_handle(int device, void* base) {
  check_not_forked("ipc_memory_handle");
  check_device(device, "ipc_memory_handle");
  SimulatedMemoryPool::SharedLocation where{};
  if (!devices_[static_cast<std::size_t>(device)].memory->locate_shared(base, &where)) {
    throw RuntimeError("ipc_memory_handle: " + pointer_text(base) + " is not the start of memory allocated on "
                       "simulated device " + std::to_string(device) +
                       " (a handle shares a whole allocation, as cudaIpcGetMemHandle's)");
  }
  if (where.fd < 0) {
    throw RuntimeError("ipc_memory_handle: this host refused a shared-memory file (memfd_create) when simulated "
                       "device " + std::to_string(device) + " first allocated, so its memory cannot be shared");
  }
  SimulatedIpcMemory memory;
  memory.pid = owner_pid_;
  memory.fd = where.fd;
  memory.device = device;
  memory.runtime = id_;
  memory.offset = where.offset;
  memory.bytes = where.bytes;
  return encode_ipc_handle(memory);
}

void* SimulatedRuntime::ipc_open_memory(int device, const std::string& handle) {
  check_not_forked("ipc_open_memory");
  check_device(device, "ipc_open_memory");
  const SimulatedIpcMemory memory = decode_ipc_memory(handle, "ipc_open_memory");
  refuse_own_handle(memory.pid, memory.runtime, id_, "ipc_open_memory");
  auto mapping = std::make_shared<SimulatedSharedMapping>(memory.pid, memory.fd, memory.offset, memory.bytes,
                                                          "ipc_open_memory");
  void* ptr = mapping->data();
  devices_[static_cast<std::size_t>(device)].memory->adopt(ptr, static_cast<std::size_t>(memory.bytes));
  std::lock_guard<std::mutex> lock(ipc_mutex_);
  opened_memory_[ptr] = OpenedMemory{device, std::move(mapping)};
  return ptr;
}

void SimulatedRuntime::ipc_close_memory(int device, void* ptr) {
  check_device(device, "ipc_close_memory");
  std::shared_ptr<SimulatedSharedMapping> mapping;
  {
    std::lock_guard<std::mutex> lock(ipc_mutex_);
    const auto it = opened_memory_.find(ptr);
    if (it == opened_memory_.end() || it->second.device != device) {
      throw RuntimeError("ipc_close_memory: " + pointer_text(ptr) + " is not memory opened on simulated device " +
                         std::to_string(device) + " by ipc_open_memory (or it was closed already)");
    }
    mapping = std::move(it->second.mapping);
    opened_memory_.erase(it);
  }
  // Work still queued on the memory must not find it unmapped.
  drain(streams_of(device));
  devices_[static_cast<std::size_t>(device)].memory->forget(ptr);
}

EventHandle SimulatedRuntime::create_ipc_event(int device) {
  check_not_forked("create_ipc_event");
  check_device(device, "create_ipc_event");
  const auto event = std::make_shared<SimulatedEvent>(device, ipc_events_->acquire());
  add_event(event);
  return event.get();
}

std::string SimulatedRuntime::ipc_event_handle(EventHandle event) {
  check_not_forked("ipc_event_handle");
  const EventPtr target = find_event(event, "ipc_event_handle");
  const SimulatedIpcEventSlot* slot = target->published_slot();
  if (slot == nullptr) {
    throw RuntimeError("ipc_event_handle: the event was not created as an interprocess event; make it with "
                       "create_ipc_event (cudaEventInterprocess)");
  }
  SimulatedIpcEvent shared;
  shared.pid = owner_pid_;
  shared.fd = ipc_events_->fd();
  shared.device = target->device();
  shared.runtime = id_;
  shared.slot = ipc_events_->index_of(slot);
  shared.generation = slot->generation.load();
  return encode_ipc_handle(shared);
}

EventHandle SimulatedRuntime::ipc_open_event(int device, const std::string& handle) {
  check_not_forked("ipc_open_event");
  check_device(device, "ipc_open_event");
  const SimulatedIpcEvent shared = decode_ipc_event(handle, "ipc_open_event");
  refuse_own_handle(shared.pid, shared.runtime, id_, "ipc_open_event");
  if (shared.slot >= SimulatedIpcEventTable::kSlots) {
    throw RuntimeError("ipc_open_event: invalid event handle (slot " + std::to_string(shared.slot) + ")");
  }
  SimulatedRemoteEvent remote;
  remote.table = std::make_shared<SimulatedSharedMapping>(shared.pid, shared.fd, 0, SimulatedIpcEventTable::kBytes,
                                                          "ipc_open_event");
  remote.slot = static_cast<const SimulatedIpcEventSlot*>(remote.table->data()) + shared.slot;
  remote.generation = shared.generation;
  if (remote.slot->generation.load() != shared.generation) {
    throw RuntimeError("ipc_open_event: the event behind the handle was destroyed in the process that shared it");
  }
  const auto event = std::make_shared<SimulatedEvent>(device, std::move(remote));
  add_event(event);
  return event.get();
}

}  // namespace torch_core
