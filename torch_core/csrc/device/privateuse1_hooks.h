// at::PrivateUse1HooksInterface over the PrivateUse1 Backend: BackendHooks' answers, and
// storage resizing, which only this interface asks for.
#pragma once

#include <cstddef>

#include <ATen/detail/PrivateUse1HooksInterface.h>
#include <c10/core/Storage.h>

#include "torch_core/csrc/device/backend_hooks.h"

namespace torch_core {

class PrivateUse1Hooks final : public BackendHooks<at::PrivateUse1HooksInterface> {
 public:
  PrivateUse1Hooks();

  void resizePrivateUse1Bytes(const c10::Storage& storage, size_t new_bytes) const override;
};

}  // namespace torch_core
