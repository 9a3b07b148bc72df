#include "torch_core/csrc/device/storage_resize.h"

#include <algorithm>
#include <utility>

#include <c10/core/Allocator.h>
#include <c10/core/DeviceGuard.h>
#include <c10/util/Exception.h>

#include "torch_core/csrc/device/backend.h"
#include "torch_core/csrc/device/runtime_call.h"

namespace torch_core {

void resize_device_storage(c10::StorageImpl& storage, std::size_t new_bytes) {
  TORCH_CHECK(storage.resizable(), "Trying to resize storage that is not resizable");
  const c10::Device device = storage.device();
  Backend& backend = Backend::get(device.type());
  c10::Allocator* allocator = storage.allocator();
  TORCH_CHECK(allocator != nullptr, "Trying to resize a ", backend.name(), " storage without an allocator");
  const std::size_t old_bytes = storage.nbytes();
  if (new_bytes == old_bytes) return;

  const c10::OptionalDeviceGuard guard(device.has_index() ? std::optional<c10::Device>(device) : std::nullopt);
  c10::DataPtr fresh = allocator->allocate(new_bytes);
  const std::size_t common = std::min(old_bytes, new_bytes);
  if (common > 0) {
    const c10::DeviceIndex index = backend.current_device();
    const c10::Stream stream = backend.streams().current_stream(index);
    runtime_call(backend.device_type(), [&] {
      backend.runtime().memcpy_async(fresh.get(), storage.data(), common, CopyKind::kDeviceToDevice,
                                     backend.streams().handle(stream));
    });
    // The old block is read by the copy just queued: keep it from reuse until it ran.
    backend.allocator().recordStream(storage.data_ptr(), stream);
  }
  storage.set_data_ptr_noswap(std::move(fresh));
  storage.set_nbytes(new_bytes);
}

}  // namespace torch_core
