// Sharing device storages with other processes (torch.multiprocessing's CUDA path), for
// any torch_core backend whose runtime implements the IPC calls: stock's
// torch/csrc/StorageSharing.cpp and CudaIPCTypes.cpp over the runtime interface.
//
// The producer sends a handle to the whole runtime allocation (the caching allocator's
// segment) with the storage's offset in it, an event recorded on its current stream, and
// a reference-counter slot in a shared-memory file. The consumer maps the allocation once
// per process (later storages of it share the mapping), makes its current stream wait
// for the event, and decrements the slot when its storage dies. A producer storage that
// dies while consumers still hold it is kept ("limbo") until they all let go, and given
// back by collect_ipc() (torch.cuda.ipc_collect) or the next such death.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include <c10/core/DeviceType.h>
#include <c10/core/StorageImpl.h>
#include <c10/util/intrusive_ptr.h>

namespace torch_core {

// What UntypedStorage._share_cuda_() returns, field by field; the handles are absent
// for a storage without memory.
struct SharedStorageHandle {
  int device = 0;
  std::optional<std::string> memory_handle;
  std::size_t size_bytes = 0;
  std::size_t offset_bytes = 0;  // of the storage in the shared allocation
  std::optional<std::string> ref_counter_handle;
  std::int64_t ref_counter_offset = 0;
  std::optional<std::string> event_handle;
  std::optional<bool> event_sync_required;
};

// Producer side: refuses a storage received from another process (as stock does).
SharedStorageHandle share_device_storage(c10::StorageImpl& storage);

// Consumer side: a non-resizable storage over the producer's memory, marked received.
c10::intrusive_ptr<c10::StorageImpl> open_shared_storage(c10::DeviceType device_type,
                                                         const SharedStorageHandle& shared);

// A consumer that already holds the storage lets the producer's new counter go.
void release_ipc_counter(const std::string& ref_counter_handle, std::int64_t ref_counter_offset);

// Frees the producer storages no consumer holds any more; true when one was freed.
bool collect_ipc();

}  // namespace torch_core
