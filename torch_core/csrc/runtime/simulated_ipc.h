// Interprocess sharing for the simulated runtime (its CUDA IPC): the 64-byte handles, the
// mapping of another process's shared memory, and the table of interprocess events.
// Internal to the simulated runtime.
//
// A device's memory is a memfd (SimulatedSharedHeap); a handle names the producer's pid,
// the file's descriptor there and the allocation's place in it, and the consumer maps it
// through /proc/<pid>/fd/<fd>, so the producer must be alive when it is opened (as with
// CUDA). An interprocess event publishes its latest record and how far its records have
// completed to a slot of a shared table; a waiting process polls the slot.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace torch_core {

// The fields of the handles, laid out without padding: a handle's bytes are the same
// every time it is made for the same allocation or event (consumers key caches on them).
struct SimulatedIpcMemory {
  std::int32_t pid = 0;
  std::int32_t fd = -1;
  std::int32_t device = 0;
  std::int32_t reserved = 0;
  std::uint64_t runtime = 0;  // the producing runtime's id within its process
  std::uint64_t offset = 0;   // in the file
  std::uint64_t bytes = 0;
};
static_assert(sizeof(SimulatedIpcMemory) == 40, "no padding in a handle");

struct SimulatedIpcEvent {
  std::int32_t pid = 0;
  std::int32_t fd = -1;
  std::int32_t device = 0;
  std::uint32_t slot = 0;
  std::uint64_t runtime = 0;
  std::uint64_t generation = 0;  // the slot's use the handle was made for
};
static_assert(sizeof(SimulatedIpcEvent) == 32, "no padding in a handle");

std::string encode_ipc_handle(const SimulatedIpcMemory& memory);
std::string encode_ipc_handle(const SimulatedIpcEvent& event);
// Throw RuntimeError naming `call` for bytes that are not such a handle.
SimulatedIpcMemory decode_ipc_memory(const std::string& handle, const char* call);
SimulatedIpcEvent decode_ipc_event(const std::string& handle, const char* call);

// Part of another process's file, mapped here; unmapped with the object.
class SimulatedSharedMapping {
 public:
  // Throws RuntimeError naming `call` when the process or the file is gone.
  SimulatedSharedMapping(int pid, int fd, std::uint64_t offset, std::uint64_t bytes, const char* call);
  ~SimulatedSharedMapping();
  SimulatedSharedMapping(const SimulatedSharedMapping&) = delete;
  SimulatedSharedMapping& operator=(const SimulatedSharedMapping&) = delete;
  void* data() const { return data_; }
  int pid() const { return pid_; }
  // False once the producer has exited (its descriptors close even while it is a zombie).
  bool producer_alive() const;

 private:
  const int pid_;
  const std::string path_;
  void* map_ = nullptr;
  std::size_t map_bytes_ = 0;
  void* data_ = nullptr;
};

// One interprocess event's state in shared memory. `generation` changes with each use of
// the slot, so a handle to a destroyed event is recognised.
struct SimulatedIpcEventSlot {
  std::atomic<std::uint64_t> recorded;   // the latest record's id
  std::atomic<std::uint64_t> completed;  // every record up to this id has completed
  std::atomic<std::uint64_t> generation;
};

// The slots of one runtime's interprocess events, in a memfd made on first use.
class SimulatedIpcEventTable : public std::enable_shared_from_this<SimulatedIpcEventTable> {
 public:
  static constexpr std::uint32_t kSlots = 4096;
  static constexpr std::size_t kBytes = kSlots * sizeof(SimulatedIpcEventSlot);

  ~SimulatedIpcEventTable();
  // A slot, cleared and given a new generation, returned to the table when the pointer
  // goes; throws RuntimeError when every slot is taken.
  std::shared_ptr<SimulatedIpcEventSlot> acquire();
  int fd() const { return fd_; }
  std::uint32_t index_of(const SimulatedIpcEventSlot* slot) const {
    return static_cast<std::uint32_t>(slot - slots_);
  }

 private:
  void map_locked();
  std::mutex mutex_;
  int fd_ = -1;
  SimulatedIpcEventSlot* slots_ = nullptr;
  std::vector<std::uint32_t> free_;
  std::uint32_t next_unused_ = 0;
};

// Another process's interprocess event, as a consumer sees it.
struct SimulatedRemoteEvent {
  std::shared_ptr<SimulatedSharedMapping> table;
  const SimulatedIpcEventSlot* slot = nullptr;
  std::uint64_t generation = 0;
  // True once the records up to `id` have completed or the producer destroyed the event.
  bool completed(std::uint64_t id) const;
  // Blocks until completed(id); throws RuntimeError when the producer exits first
  // (nothing completes then).
  void wait(std::uint64_t id) const;
};

}  // namespace torch_core
