#include "torch_core/csrc/device/host_allocator.h"

#include <array>
#include <atomic>
#include <cstring>
#include <exception>

#include <c10/util/Exception.h>

#include "torch_core/csrc/device/runtime_call.h"
#include "torch_core/csrc/runtime/allocator_errors.h"

namespace torch_core {

namespace {

constexpr auto kDeviceTypes = static_cast<std::size_t>(c10::DeviceType::COMPILE_TIME_MAX_DEVICE_TYPES);
std::array<std::atomic<PinnedHostAllocator*>, kDeviceTypes> allocators{};

template <c10::DeviceType kType>
void delete_pinned(void* ptr) {
  PinnedHostAllocator* allocator = allocators[static_cast<std::size_t>(kType)].load();
  if (allocator == nullptr || ptr == nullptr) return;
  try {
    allocator->free(ptr);
  } catch (const std::exception& e) {
    TORCH_WARN("freeing pinned host memory failed: ", e.what());
  }
}

c10::DeleterFnPtr deleter_for(c10::DeviceType type) {
  switch (type) {
    case c10::DeviceType::CUDA:
      return &delete_pinned<c10::DeviceType::CUDA>;
    case c10::DeviceType::PrivateUse1:
      return &delete_pinned<c10::DeviceType::PrivateUse1>;
    default:
      return nullptr;
  }
}

}  // namespace

PinnedHostAllocator::PinnedHostAllocator(c10::DeviceType device_type, DeviceRuntime& runtime)
    : device_type_(device_type), core_(runtime) {
  TORCH_CHECK(deleter_for(device_type) != nullptr, "torch_core: no pinned allocator for device type ",
              c10::DeviceTypeName(device_type), " (CUDA and PrivateUse1 are supported)");
  PinnedHostAllocator* expected = nullptr;
  TORCH_CHECK(allocators[static_cast<std::size_t>(device_type)].compare_exchange_strong(expected, this),
              "torch_core: a pinned host allocator for ", c10::DeviceTypeName(device_type),
              " already exists");
}

PinnedHostAllocator::~PinnedHostAllocator() {
  PinnedHostAllocator* self = this;
  allocators[static_cast<std::size_t>(device_type_)].compare_exchange_strong(self, nullptr);
}

c10::DataPtr PinnedHostAllocator::allocate(std::size_t bytes) {
  void* ptr = nullptr;
  if (bytes > 0) {
    try {
      ptr = core_.allocate(bytes);
    } catch (const OutOfMemoryError& e) {
      TORCH_CHECK_WITH(OutOfMemoryError, false, "pinned host memory for ",
                       c10::DeviceTypeName(device_type_, true), ": ", e.what());
    } catch (const RuntimeError& e) {
      TORCH_CHECK(false, e.what());
    }
    std::lock_guard<std::mutex> lock(mutex_);
    blocks_.emplace(reinterpret_cast<std::uintptr_t>(ptr), bytes);
  }
  return c10::DataPtr(ptr, ptr, raw_deleter(), c10::Device(c10::DeviceType::CPU));
}

c10::DeleterFnPtr PinnedHostAllocator::raw_deleter() const { return deleter_for(device_type_); }

void PinnedHostAllocator::copy_data(void* dest, const void* src, std::size_t count) const {
  if (count > 0) std::memcpy(dest, src, count);
}

void* PinnedHostAllocator::block_of(const void* ptr) const {
  const auto address = reinterpret_cast<std::uintptr_t>(ptr);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = blocks_.upper_bound(address);
  if (it == blocks_.begin()) return nullptr;
  --it;
  return address < it->first + it->second ? reinterpret_cast<void*>(it->first) : nullptr;
}

bool PinnedHostAllocator::is_pinned(const void* ptr) const { return block_of(ptr) != nullptr; }

void PinnedHostAllocator::free(void* ptr) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    blocks_.erase(reinterpret_cast<std::uintptr_t>(ptr));
  }
  core_.free(ptr);
}

void PinnedHostAllocator::record_stream(const void* ptr, int device, StreamHandle stream) {
  void* block = block_of(ptr);
  if (block == nullptr) return;
  runtime_call(device_type_, [&] { core_.record_stream(block, device, stream); });
}

void PinnedHostAllocator::empty_cache() { core_.empty_cache(); }

}  // namespace torch_core
