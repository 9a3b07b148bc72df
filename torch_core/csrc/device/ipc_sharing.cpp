#include "torch_core/csrc/device/ipc_sharing.h"

#include <unistd.h>

#include <atomic>
#include <iterator>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <tuple>
#include <utility>
#include <vector>

#include <ATen/MapAllocator.h>
#include <c10/core/Allocator.h>
#include <c10/util/Exception.h>

#include "torch_core/csrc/device/backend.h"
#include "torch_core/csrc/device/runtime_call.h"
#include "torch_core/csrc/runtime/current_device_scope.h"

namespace torch_core {
namespace {

// Stock's sizes (CudaIPCTypes.h): counters per shared-memory file, and how many
// interprocess events may be outstanding before sharing synchronises the stream instead.
constexpr std::int64_t kCountersPerFile = 10000;
constexpr int kMaxSyncEvents = 1000;
constexpr std::size_t kCounterFileBytes = sizeof(std::int64_t) * kCountersPerFile;

// One shared-memory file of reference counters, handed out slot by slot; the file goes
// (unlinked by the map allocator) once this process and every consumer let it go.
struct CounterFile {
  std::string name;
  at::DataPtr memory;
  std::int64_t next_offset = 0;
  std::int64_t* counter(std::int64_t offset) const { return static_cast<std::int64_t*>(memory.get()) + offset; }
  bool has_offsets() const { return next_offset < kCountersPerFile; }
};

// What a shared producer storage holds: its original memory, the counter consumers
// decrement, and the event they wait for.
struct SentData {
  std::shared_ptr<CounterFile> file;
  std::int64_t offset = 0;
  c10::DataPtr original;
  c10::DeviceType device_type = c10::DeviceType::CPU;
  int device = 0;
  EventHandle event = nullptr;  // null when the stream was synchronised instead
  ~SentData();
  std::int64_t counter_value() const { return *file->counter(offset); }
};

struct IpcState {
  std::mutex counters_mutex;
  std::shared_ptr<CounterFile> current;  // the file new slots come from; senders hold theirs
  std::atomic<int> sync_events{0};
  std::mutex limbo_mutex;
  std::vector<std::unique_ptr<SentData>> limbo;
  std::mutex opened_mutex;
  std::map<std::tuple<c10::DeviceType, int, std::string>, std::weak_ptr<void>> opened;
};

// Never destroyed: producer storages may die during interpreter shutdown, after static
// destructors would have run.
IpcState& state() {
  static IpcState* instance = new IpcState();
  return *instance;
}

// Takes out of limbo the blocks whose consumers have all let go.
std::vector<std::unique_ptr<SentData>> take_released_limbo() {
  IpcState& s = state();
  std::lock_guard<std::mutex> lock(s.limbo_mutex);
  std::vector<std::unique_ptr<SentData>> kept;
  std::vector<std::unique_ptr<SentData>> released;
  for (auto& sent : s.limbo) {
    (sent->counter_value() > 0 ? kept : released).push_back(std::move(sent));
  }
  s.limbo = std::move(kept);
  return released;
}

// At exit, as stock's ~CudaIPCGlobalEntities: the counter file new slots would have come
// from is let go, so the map allocator unlinks it from /dev/shm unless a shared storage
// still holds one of its slots (it was never let go: every process that shared a device
// tensor left an 80 KB file behind). The blocks in limbo whose consumers are done let go
// of their slots too, as stock's exit collects them, but their memory is not freed (the
// allocator may be gone already) and their record is left to the process's end. A warning
// is said when consumers still hold memory this process shared.
struct AtExit {
  ~AtExit() {
    IpcState& s = state();
    {
      std::lock_guard<std::mutex> lock(s.counters_mutex);
      s.current.reset();
    }
    for (std::unique_ptr<SentData>& sent : take_released_limbo()) {
      sent->file.reset();
      static_cast<void>(sent.release());  // never destroyed: see above
    }
    std::lock_guard<std::mutex> lock(s.limbo_mutex);
    if (!s.limbo.empty()) {
      std::fprintf(stderr,
                   "[W] Producer process has been terminated before all shared device tensors were released "
                   "(%zu still held by other processes).\n",
                   s.limbo.size());
    }
  }
} at_exit;

SentData::~SentData() {
  if (event == nullptr) return;
  try {
    Backend& backend = Backend::get(device_type);
    const CurrentDeviceScope scope(backend.runtime(), device);
    backend.runtime().destroy_event(event);
    state().sync_events -= 1;
  } catch (...) {  // a deleter must not throw; the event is the runtime's to reclaim
  }
}

std::shared_ptr<CounterFile> take_counter_slot(std::int64_t* offset) {
  IpcState& s = state();
  std::lock_guard<std::mutex> lock(s.counters_mutex);
  if (s.current == nullptr) {
    static std::random_device random;
    auto file = std::make_shared<CounterFile>();
    file->name = "/torch_core_" + std::to_string(getpid()) + "_" + std::to_string(random());
    file->memory = at::RefcountedMapAllocator::makeDataPtr(
        file->name.c_str(), at::ALLOCATOR_MAPPED_SHAREDMEM | at::ALLOCATOR_MAPPED_EXCLUSIVE, kCounterFileBytes,
        nullptr);
    s.current = file;
  }
  std::shared_ptr<CounterFile> file = s.current;
  *offset = file->next_offset++;
  *file->counter(*offset) = 1;  // the consumer's reference
  if (!file->has_offsets()) s.current.reset();
  return file;
}

bool collect_limbo() {
  std::vector<std::unique_ptr<SentData>> released = take_released_limbo();
  const bool freed = !released.empty();
  released.clear();  // outside the lock: freeing goes back into the allocator
  return freed;
}

void delete_sent_data(void* context) {
  std::unique_ptr<SentData> sent(static_cast<SentData*>(context));
  if (sent->counter_value() > 0) {
    IpcState& s = state();
    std::lock_guard<std::mutex> lock(s.limbo_mutex);
    s.limbo.push_back(std::move(sent));
  }
  collect_limbo();
}

void decrement_counter(const std::string& file, std::int64_t offset) {
  // Best effort, as stock: the producer may have exited and its file gone with it.
  try {
    const at::DataPtr memory = at::RefcountedMapAllocator::makeDataPtr(
        file.c_str(), at::ALLOCATOR_MAPPED_SHAREDMEM | at::ALLOCATOR_MAPPED_NOCREATE, kCounterFileBytes, nullptr);
    *(static_cast<std::int64_t*>(memory.get()) + offset) -= 1;
  } catch (const c10::Error&) {
  }
}

// The producer's allocation mapped here, once per process however many storages use it.
std::shared_ptr<void> open_memory(Backend& backend, int device, const std::string& handle) {
  IpcState& s = state();
  const auto key = std::make_tuple(backend.device_type(), device, handle);
  std::lock_guard<std::mutex> lock(s.opened_mutex);
  if (auto existing = s.opened[key].lock()) return existing;
  // Forget the allocations whose last storage here has gone (their mappings are closed).
  for (auto it = s.opened.begin(); it != s.opened.end();) {
    it = it->second.expired() && it->first != key ? s.opened.erase(it) : std::next(it);
  }
  void* base = runtime_call(backend.device_type(), [&] { return backend.runtime().ipc_open_memory(device, handle); });
  Backend* owner = &backend;
  std::shared_ptr<void> mapping(base, [owner, device](void* ptr) {
    try {
      const CurrentDeviceScope scope(owner->runtime(), device);
      owner->runtime().ipc_close_memory(device, ptr);
    } catch (...) {  // a deleter must not throw; the mapping goes with the process
    }
  });
  s.opened[key] = mapping;
  return mapping;
}

struct ReceivedData {
  Backend* backend;
  int device;
  std::shared_ptr<void> mapping;
  std::string ref_counter_handle;
  std::int64_t ref_counter_offset;
};

void delete_received_data(void* context) {
  std::unique_ptr<ReceivedData> received(static_cast<ReceivedData*>(context));
  // The producer may reuse the memory once the counter drops: finish this process's work
  // on it first (stock synchronises the current stream).
  try {
    Backend& backend = *received->backend;
    const CurrentDeviceScope scope(backend.runtime(), received->device);
    const c10::Stream stream = backend.streams().current_stream(static_cast<c10::DeviceIndex>(received->device));
    backend.runtime().synchronize_stream(backend.streams().handle(stream));
  } catch (...) {  // a deleter must not throw; the counter is released all the same
  }
  received->mapping.reset();
  decrement_counter(received->ref_counter_handle, received->ref_counter_offset);
}

}  // namespace

SharedStorageHandle share_device_storage(c10::StorageImpl& storage) {
  TORCH_CHECK(!storage.received_cuda(),
              "Attempted to send CUDA tensor received from another process; this is not currently supported. "
              "Consider cloning before sending.");
  const c10::Device device = storage.device();
  Backend& backend = Backend::get(device.type());
  const int index = device.has_index() ? device.index() : backend.current_device();
  SharedStorageHandle shared;
  shared.device = index;
  shared.size_bytes = storage.nbytes();
  if (storage.data() == nullptr) return shared;

  DeviceRuntime& runtime = backend.runtime();
  const CurrentDeviceScope scope(runtime, index);
  void* data = storage.mutable_data();
  void* base = runtime_call(device.type(), [&] { return backend.allocator().core().segment_base(data); });
  shared.memory_handle = runtime_call(device.type(), [&] { return runtime.ipc_memory_handle(index, base); });
  shared.offset_bytes = static_cast<std::size_t>(static_cast<char*>(data) - static_cast<char*>(base));

  auto sent = std::make_unique<SentData>();
  sent->device_type = device.type();
  sent->device = index;
  sent->file = take_counter_slot(&sent->offset);
  const StreamHandle stream =
      backend.streams().handle(backend.streams().current_stream(static_cast<c10::DeviceIndex>(index)));
  // The consumer waits for what this process queued on the storage so far.
  runtime_call(device.type(), [&] {
    if (state().sync_events.load() < kMaxSyncEvents) {
      sent->event = runtime.create_ipc_event(index);
      state().sync_events += 1;
      runtime.record_event(sent->event, stream);
      shared.event_handle = runtime.ipc_event_handle(sent->event);
      shared.event_sync_required = true;
    } else {
      runtime.synchronize_stream(stream);
      shared.event_handle = std::string(DeviceRuntime::kIpcHandleBytes, '\0');
      shared.event_sync_required = false;
    }
  });
  shared.ref_counter_handle = sent->file->name;
  shared.ref_counter_offset = sent->offset;
  SentData* context = sent.release();
  context->original = storage.set_data_ptr(c10::DataPtr(data, context, &delete_sent_data, device));
  return shared;
}

c10::intrusive_ptr<c10::StorageImpl> open_shared_storage(c10::DeviceType device_type,
                                                         const SharedStorageHandle& shared) {
  TORCH_CHECK(shared.memory_handle && shared.ref_counter_handle && shared.event_handle &&
                  shared.event_sync_required.has_value(),
              "_new_shared_cuda: the handles of a storage with memory are required");
  Backend& backend = Backend::get(device_type);
  const int device = backend.checked_index(static_cast<c10::DeviceIndex>(shared.device));
  DeviceRuntime& runtime = backend.runtime();
  const CurrentDeviceScope scope(runtime, device);
  if (*shared.event_sync_required) {
    runtime_call(device_type, [&] {
      const EventHandle event = runtime.ipc_open_event(device, *shared.event_handle);
      const c10::Stream stream = backend.streams().current_stream(static_cast<c10::DeviceIndex>(device));
      runtime.stream_wait_event(backend.streams().handle(stream), event);
      runtime.destroy_event(event);  // the wait stays queued
    });
  }
  auto received = std::make_unique<ReceivedData>();
  received->backend = &backend;
  received->device = device;
  received->mapping = open_memory(backend, device, *shared.memory_handle);
  received->ref_counter_handle = *shared.ref_counter_handle;
  received->ref_counter_offset = shared.ref_counter_offset;
  void* data = static_cast<char*>(received->mapping.get()) + shared.offset_bytes;
  c10::DataPtr data_ptr(data, received.release(), &delete_received_data,
                        c10::Device(device_type, static_cast<c10::DeviceIndex>(device)));
  auto storage = c10::make_intrusive<c10::StorageImpl>(c10::StorageImpl::use_byte_size_t(), shared.size_bytes,
                                                       std::move(data_ptr), /*allocator=*/nullptr,
                                                       /*resizable=*/false);
  storage->set_received_cuda(true);
  return storage;
}

void release_ipc_counter(const std::string& ref_counter_handle, std::int64_t ref_counter_offset) {
  decrement_counter(ref_counter_handle, ref_counter_offset);
}

bool collect_ipc() {
  const bool freed = collect_limbo();
  IpcState& s = state();
  bool limbo_empty = false;
  {
    std::lock_guard<std::mutex> lock(s.limbo_mutex);
    limbo_empty = s.limbo.empty();
  }
  if (limbo_empty) {
    // Nothing is held by consumers: this process lets the current counter file go (its
    // live senders keep it; the next share makes a new one).
    std::lock_guard<std::mutex> lock(s.counters_mutex);
    s.current.reset();
  }
  return freed;
}

}  // namespace torch_core
