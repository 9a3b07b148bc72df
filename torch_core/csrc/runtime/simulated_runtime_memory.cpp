// SimulatedRuntime's memory: device and pinned-host allocations, and the copies and fills
// between them, with the checks cudart makes (ranges inside one allocation, copy kinds
// that match the memory).
#include "torch_core/csrc/runtime/simulated_runtime.h"

#include <cstring>
#include <string>
#include <utility>

#include "torch_core/csrc/runtime/pointer_text.h"
#include "torch_core/csrc/runtime/simulated_memory.h"
#include "torch_core/csrc/runtime/simulated_stream.h"
#include "torch_core/csrc/runtime/simulated_virtual_memory.h"

namespace torch_core {
namespace {

const char* kind_name(CopyKind kind) {
  switch (kind) {
    case CopyKind::kHostToDevice:
      return "kHostToDevice";
    case CopyKind::kDeviceToHost:
      return "kDeviceToHost";
    case CopyKind::kDeviceToDevice:
      return "kDeviceToDevice";
  }
  return "an unknown CopyKind";
}

}  // namespace

// --- Memory --------------------------------------------------------------------------

void* SimulatedRuntime::allocate(int device, std::size_t bytes) {
  check_not_forked("allocate");
  check_device(device, "allocate");
  return devices_[static_cast<std::size_t>(device)].memory->allocate(bytes);
}

void SimulatedRuntime::free(int device, void* ptr) {
  check_device(device, "free");
  if (ptr == nullptr) return;  // as cudaFree(nullptr)
  refuse_unsafe_call(-1, "free");
  SimulatedMemoryPool& memory = *devices_[static_cast<std::size_t>(device)].memory;
  if (!memory.owns(ptr)) {
    for (int other = 0; other < config_.device_count; ++other) {
      if (devices_[static_cast<std::size_t>(other)].memory->owns(ptr)) {
        throw RuntimeError("free: pointer " + pointer_text(ptr) + " was allocated on simulated device " +
                           std::to_string(other) + ", not device " + std::to_string(device) +
                           "; free it on the device that allocated it");
      }
    }
    throw RuntimeError("free: pointer " + pointer_text(ptr) + " is not the start of memory allocated on "
                       "simulated device " + std::to_string(device) +
                       " (never allocated by this runtime, already freed, or an interior pointer)");
  }
  drain(streams_of(device));
  // A concurrent free of the same pointer may have won while we drained.
  if (!memory.release(ptr)) {
    throw RuntimeError("free: pointer " + pointer_text(ptr) + " on simulated device " +
                       std::to_string(device) + " was freed twice (concurrently)");
  }
}

MemoryInfo SimulatedRuntime::memory_info(int device) const {
  check_device(device, "memory_info");
  const SimulatedMemoryPool& memory = *devices_[static_cast<std::size_t>(device)].memory;
  MemoryInfo info;
  info.total_bytes = memory.capacity();
  info.free_bytes = memory.capacity() - memory.used();
  return info;
}

void* SimulatedRuntime::allocate_host_pinned(std::size_t bytes) { return pinned_->allocate(bytes); }

void SimulatedRuntime::free_host_pinned(void* ptr) {
  if (ptr == nullptr) return;
  refuse_unsafe_call(-1, "free_host_pinned");
  if (!pinned_->owns(ptr)) {
    throw RuntimeError("free_host_pinned: pointer " + pointer_text(ptr) +
                       " is not the start of pinned memory from allocate_host_pinned (never "
                       "allocated, already freed, or an interior pointer)");
  }
  drain(streams_of(-1));  // an async copy on any device may still read or write it
  if (!pinned_->release(ptr)) {
    throw RuntimeError("free_host_pinned: pointer " + pointer_text(ptr) + " was freed twice (concurrently)");
  }
}

int SimulatedRuntime::device_holding(const void* ptr, std::size_t bytes) const {
  for (int device = 0; device < config_.device_count; ++device) {
    const Device& state = devices_[static_cast<std::size_t>(device)];
    if (state.memory->contains(ptr, bytes) || state.virtual_memory->contains(ptr, bytes)) return device;
  }
  return -1;
}

bool SimulatedRuntime::is_pinned(const void* ptr, std::size_t bytes) const {
  return pinned_->contains(ptr, bytes);
}

// The simulator's value is catching what CUDA would corrupt silently or reject: a device
// side outside any allocation, or a host side that is really device memory.
void SimulatedRuntime::check_copy(void* dst, const void* src, std::size_t bytes, CopyKind kind,
                                  const char* call) const {
  const bool dst_on_device = kind != CopyKind::kDeviceToHost;
  const bool src_on_device = kind != CopyKind::kHostToDevice;
  const auto check_side = [&](const void* ptr, bool on_device, const char* role) {
    if (ptr == nullptr) {
      throw RuntimeError(std::string(call) + ": the " + role + " pointer is null");
    }
    const bool in_device_memory = device_holding(ptr, bytes) >= 0;
    if (on_device && !in_device_memory) {
      throw RuntimeError(std::string(call) + " (" + kind_name(kind) + "): the " + role + " range [" +
                         pointer_text(ptr) + ", +" + std::to_string(bytes) +
                         " bytes) is not inside device memory allocated by this runtime");
    }
    if (!on_device && in_device_memory) {
      throw RuntimeError(std::string(call) + " (" + kind_name(kind) + "): the " + role + " " +
                         pointer_text(ptr) + " is device memory, but the copy kind says host; "
                         "use the CopyKind that matches both sides");
    }
  };
  check_side(dst, dst_on_device, "destination");
  check_side(src, src_on_device, "source");
}

void SimulatedRuntime::memset_async(void* dst, int value, std::size_t bytes, StreamHandle stream) {
  check_not_forked("memset_async");
  const StreamPtr target = stream_for(stream, "memset_async", StreamUse::kQueueOrWait);
  if (bytes == 0) return;
  if (dst == nullptr || device_holding(dst, bytes) < 0) {
    throw RuntimeError("memset_async: the range [" + pointer_text(dst) + ", +" + std::to_string(bytes) +
                       " bytes) is not inside device memory allocated by this runtime");
  }
  submit(target, [dst, value, bytes] { std::memset(dst, value, bytes); }, "memset_async");
}

void SimulatedRuntime::memcpy_async(void* dst, const void* src, std::size_t bytes, CopyKind kind,
                                    StreamHandle stream) {
  check_not_forked("memcpy_async");
  const StreamPtr target = stream_for(stream, "memcpy_async", StreamUse::kQueueOrWait);
  if (bytes == 0) return;
  check_copy(dst, src, bytes, kind, "memcpy_async");
  // As cudaMemcpyAsync: from pageable host memory the source is staged before the call
  // returns (the caller may reuse it at once); into pageable host memory the call returns
  // when the copy is done. Only pinned memory makes host copies truly asynchronous.
  const bool pageable = (kind == CopyKind::kHostToDevice && !is_pinned(src, bytes)) ||
                        (kind == CopyKind::kDeviceToHost && !is_pinned(dst, bytes));
  // Captured, any copy is a node of the graph: it reads and writes host memory when the
  // graph runs, as CUDA's memcpy nodes do, with nothing staged or awaited at the call.
  if (!pageable || capture_of(target.get()) != nullptr) {
    submit(target, [dst, src, bytes] { std::memcpy(dst, src, bytes); }, "memcpy_async");
    return;
  }
  if (kind == CopyKind::kHostToDevice) {
    const auto* begin = static_cast<const unsigned char*>(src);
    std::vector<unsigned char> staged(begin, begin + bytes);
    target->enqueue([dst, staged = std::move(staged)] { std::memcpy(dst, staged.data(), staged.size()); });
    return;
  }
  target->wait(target->enqueue([dst, src, bytes] { std::memcpy(dst, src, bytes); }));
}

void SimulatedRuntime::memcpy(void* dst, const void* src, std::size_t bytes, CopyKind kind) {
  check_not_forked("memcpy");
  // As cudaMemcpy: on the current device's default stream, after the work queued there.
  const int device = current_device();
  check_device(device, "memcpy");
  if (bytes == 0) return;
  check_copy(dst, src, bytes, kind, "memcpy");
  SimulatedStream& stream = *devices_[static_cast<std::size_t>(device)].default_stream;
  stream.wait(stream.enqueue([dst, src, bytes] { std::memcpy(dst, src, bytes); }));
  const std::string error = stream.take_error();
  if (!error.empty()) {
    throw_work_failure("memcpy: earlier work on the default stream of simulated device " + std::to_string(device),
                       error);
  }
}

}  // namespace torch_core
