#include "torch_core/csrc/runtime/simulated_ipc.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "torch_core/csrc/runtime/device_runtime.h"
#include "torch_core/csrc/runtime/simulated_shared_heap.h"

namespace torch_core {
namespace {

// What a handle's bytes hold: a tag, then the fields, zero-padded to kIpcHandleBytes.
constexpr char kMemoryTag[8] = {'T', 'C', 'S', 'I', 'M', 'M', 'E', 'M'};
constexpr char kEventTag[8] = {'T', 'C', 'S', 'I', 'M', 'E', 'V', 'T'};

template <typename Fields>
std::string encode(const char (&tag)[8], const Fields& fields) {
  static_assert(sizeof(tag) + sizeof(Fields) <= DeviceRuntime::kIpcHandleBytes, "a handle is 64 bytes");
  std::string bytes(DeviceRuntime::kIpcHandleBytes, '\0');
  std::memcpy(&bytes[0], tag, sizeof(tag));
  std::memcpy(&bytes[sizeof(tag)], &fields, sizeof(Fields));
  return bytes;
}

template <typename Fields>
Fields decode(const char (&tag)[8], const std::string& bytes, const char* what, const char* call) {
  if (bytes.size() != DeviceRuntime::kIpcHandleBytes || std::memcmp(bytes.data(), tag, sizeof(tag)) != 0) {
    throw RuntimeError(std::string(call) + ": invalid " + what + " handle (" + std::to_string(bytes.size()) +
                       " bytes); pass the bytes another process got from the simulated runtime");
  }
  Fields fields;
  std::memcpy(&fields, bytes.data() + sizeof(tag), sizeof(Fields));
  return fields;
}

std::string process_gone(int pid) {
  return "the process that shared it (pid " + std::to_string(pid) +
         ") has exited or freed it; keep the producer alive while others use what it shares";
}

}  // namespace

std::string encode_ipc_handle(const SimulatedIpcMemory& memory) { return encode(kMemoryTag, memory); }
std::string encode_ipc_handle(const SimulatedIpcEvent& event) { return encode(kEventTag, event); }

SimulatedIpcMemory decode_ipc_memory(const std::string& handle, const char* call) {
  return decode<SimulatedIpcMemory>(kMemoryTag, handle, "memory", call);
}

SimulatedIpcEvent decode_ipc_event(const std::string& handle, const char* call) {
  return decode<SimulatedIpcEvent>(kEventTag, handle, "event", call);
}

SimulatedSharedMapping::SimulatedSharedMapping(int pid, int fd, std::uint64_t offset, std::uint64_t bytes,
                                               const char* call)
    : pid_(pid), path_("/proc/" + std::to_string(pid) + "/fd/" + std::to_string(fd)) {
  const std::string& path = path_;
  const int file = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (file < 0) {
    const int error = errno;
    throw RuntimeError(std::string(call) + ": cannot open " + path + " (" + std::strerror(error) + "): " +
                       process_gone(pid));
  }
  const std::uint64_t page = SimulatedSharedHeap::page_size();
  const std::uint64_t start = offset / page * page;
  map_bytes_ = SimulatedSharedHeap::round_to_page(static_cast<std::size_t>(offset - start + bytes));
  void* map = mmap(nullptr, map_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, file, static_cast<off_t>(start));
  const int error = errno;
  close(file);
  if (map == MAP_FAILED) {
    throw RuntimeError(std::string(call) + ": cannot map " + std::to_string(bytes) + " bytes of " + path + " (" +
                       std::strerror(error) + ")");
  }
  map_ = map;
  data_ = static_cast<char*>(map) + (offset - start);
}

SimulatedSharedMapping::~SimulatedSharedMapping() { munmap(map_, map_bytes_); }

bool SimulatedSharedMapping::producer_alive() const { return access(path_.c_str(), F_OK) == 0; }

SimulatedIpcEventTable::~SimulatedIpcEventTable() {
  if (slots_ != nullptr) munmap(slots_, kBytes);
  if (fd_ >= 0) close(fd_);
}

void SimulatedIpcEventTable::map_locked() {
  if (slots_ != nullptr) return;
  const int fd = memfd_create("torch_core_simulated_ipc_events", MFD_CLOEXEC);
  if (fd < 0 || ftruncate(fd, static_cast<off_t>(kBytes)) != 0) {
    const int error = errno;
    if (fd >= 0) close(fd);
    throw RuntimeError(std::string("create_ipc_event: cannot make the shared event table (") +
                       std::strerror(error) + ")");
  }
  void* map = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED) {
    const int error = errno;
    close(fd);
    throw RuntimeError(std::string("create_ipc_event: cannot map the shared event table (") +
                       std::strerror(error) + ")");
  }
  fd_ = fd;
  slots_ = static_cast<SimulatedIpcEventSlot*>(map);  // zero-filled: every field starts at 0
}

std::shared_ptr<SimulatedIpcEventSlot> SimulatedIpcEventTable::acquire() {
  std::lock_guard<std::mutex> lock(mutex_);
  map_locked();
  std::uint32_t index = 0;
  if (!free_.empty()) {
    index = free_.back();
    free_.pop_back();
  } else if (next_unused_ < kSlots) {
    index = next_unused_++;
  } else {
    throw RuntimeError("create_ipc_event: all " + std::to_string(kSlots) +
                       " interprocess events of this process are in use; destroy some first");
  }
  SimulatedIpcEventSlot* slot = slots_ + index;
  slot->recorded.store(0);
  slot->completed.store(0);
  slot->generation.fetch_add(1);
  // The deleter holds the table, so a slot outlives neither its memory nor its free list.
  std::shared_ptr<SimulatedIpcEventTable> self = shared_from_this();
  return std::shared_ptr<SimulatedIpcEventSlot>(slot, [self, index](SimulatedIpcEventSlot* used) {
    used->generation.fetch_add(1);  // handles to the destroyed event no longer open
    std::lock_guard<std::mutex> lock(self->mutex_);
    self->free_.push_back(index);
  });
}

bool SimulatedRemoteEvent::completed(std::uint64_t id) const {
  return slot->completed.load(std::memory_order_acquire) >= id ||
         slot->generation.load(std::memory_order_acquire) != generation;
}

void SimulatedRemoteEvent::wait(std::uint64_t id) const {
  auto pause = std::chrono::microseconds(20);
  while (!completed(id)) {
    if (!table->producer_alive()) {
      throw RuntimeError("stream_wait_event: " + process_gone(table->pid()) +
                         " before the event it shared completed");
    }
    std::this_thread::sleep_for(pause);
    if (pause < std::chrono::milliseconds(1)) pause *= 2;
  }
}

}  // namespace torch_core
