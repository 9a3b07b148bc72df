#include "torch_core/csrc/runtime/simulated_shared_heap.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <iterator>
#include <limits>

namespace torch_core {

std::size_t SimulatedSharedHeap::page_size() {
  static const std::size_t size = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return size;
}

std::size_t SimulatedSharedHeap::round_to_page(std::size_t bytes) {
  const std::size_t page = page_size();
  if (bytes > std::numeric_limits<std::size_t>::max() - page) return 0;
  return (bytes + page - 1) / page * page;
}

SimulatedSharedHeap::~SimulatedSharedHeap() {
  if (base_ != nullptr) {
    simulated_faults::unwatch(base_);
    munmap(base_, range_);
  }
  if (fd_ >= 0) close(fd_);
}

bool SimulatedSharedHeap::map_locked() {
  if (base_ != nullptr) return true;
  if (range_ == 0) return false;
  // Close-on-exec: a spawned child opens the file through /proc, it inherits nothing.
  int fd = memfd_create("torch_core_simulated_device", MFD_CLOEXEC);
  if (fd >= 0 && ftruncate(fd, static_cast<off_t>(range_)) != 0) {
    close(fd);
    fd = -1;
  }
  // A host that refuses the file (a seccomp filter, say) still gets device memory, private
  // to this process: everything works but sharing it (fd() is -1).
  // Nothing is allocated yet, so nothing is accessible.
  void* base = fd >= 0 ? mmap(nullptr, range_, PROT_NONE, MAP_SHARED | MAP_NORESERVE, fd, 0)
                       : mmap(nullptr, range_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) {
    if (fd >= 0) close(fd);
    return false;
  }
  fd_ = fd;
  base_ = static_cast<char*>(base);
  free_.emplace(0, range_);
  return true;
}

void* SimulatedSharedHeap::allocate(std::size_t bytes) {
  const std::size_t length = round_to_page(bytes);
  if (length == 0) return nullptr;
  void* ptr = nullptr;
  bool first_mapping = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    first_mapping = base_ == nullptr;
    if (!map_locked()) return nullptr;
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      if (it->second < length) continue;
      const std::size_t offset = it->first;
      if (mprotect(base_ + offset, length, PROT_READ | PROT_WRITE) != 0) break;
      const std::size_t rest = it->second - length;
      free_.erase(it);
      if (rest > 0) free_.emplace(offset + length, rest);
      ptr = base_ + offset;
      break;
    }
  }
  // Outside the lock: a fault's recovery takes the watch list's lock, then this one.
  if (first_mapping && base_ != nullptr) simulated_faults::watch(base_, range_, this);
  return ptr;
}

void SimulatedSharedHeap::close_locked(std::size_t offset, std::size_t length) {
  if (fd_ >= 0) {
    fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(offset),
              static_cast<off_t>(length));
  } else {
    madvise(base_ + offset, length, MADV_DONTNEED);
  }
  mprotect(base_ + offset, length, PROT_NONE);
}

void SimulatedSharedHeap::reprotect() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [offset, length] : free_) close_locked(offset, length);
}

void SimulatedSharedHeap::release(void* ptr, std::size_t bytes) {
  const std::size_t length = round_to_page(bytes);
  std::lock_guard<std::mutex> lock(mutex_);
  std::size_t offset = offset_of(ptr);
  std::size_t span = length;
  close_locked(offset, length);  // the pages go back, and a stale pointer faults
  auto next = free_.lower_bound(offset);
  if (next != free_.end() && next->first == offset + span) {
    span += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    const auto previous = std::prev(next);
    if (previous->first + previous->second == offset) {
      offset = previous->first;
      span += previous->second;
      free_.erase(previous);
    }
  }
  free_.emplace(offset, span);
}

}  // namespace torch_core
