// Growing or shrinking the memory of a device storage (UntypedStorage.resize_, resize_ of
// a tensor past its storage): a new block from the storage's allocator, the common prefix
// copied on the current stream, the old block released once that copy has run.
#pragma once

#include <cstddef>

#include <c10/core/StorageImpl.h>

namespace torch_core {

// `storage` is on a device with a torch_core backend. Throws c10::Error when it is not
// resizable, c10::OutOfMemoryError when the device is full.
void resize_device_storage(c10::StorageImpl& storage, std::size_t new_bytes);

}  // namespace torch_core
