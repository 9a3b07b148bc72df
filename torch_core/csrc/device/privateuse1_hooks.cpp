#include "torch_core/csrc/device/privateuse1_hooks.h"

#include "torch_core/csrc/device/storage_resize.h"

namespace torch_core {

PrivateUse1Hooks::PrivateUse1Hooks()
    : BackendHooks([]() -> Backend& { return Backend::get(c10::DeviceType::PrivateUse1); }) {}

void PrivateUse1Hooks::resizePrivateUse1Bytes(const c10::Storage& storage, size_t new_bytes) const {
  resize_device_storage(*storage.unsafeGetStorageImpl(), new_bytes);
}

}  // namespace torch_core
