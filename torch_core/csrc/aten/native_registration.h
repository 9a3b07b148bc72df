// Registering torch_core's generic kernels on a backend's dispatch key. A backend writes
//
//   TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) { torch_core::register_native_ops(m); }
//   TORCH_LIBRARY_IMPL(_, PrivateUse1, m) {
//     torch_core::register_cpu_fallback<c10::DeviceType::PrivateUse1>(m);
//   }
//
// and adds its own kernels in further TORCH_LIBRARY_IMPL(aten, Key, m) blocks.
#pragma once

#include <c10/core/DeviceType.h>
#include <torch/library.h>

#include "torch_core/aten/cpu_fallback.h"

namespace torch_core {

// The ops the CPU fallback cannot stand in for (reference/cuda-key-probe): factories,
// resize_, copies, views, set_, record_stream, _local_scalar_dense, fill_, zero_.
void register_native_ops(torch::Library& m);

template <c10::DeviceType kDeviceType>
void register_cpu_fallback(torch::Library& m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&cpu_fallback<kDeviceType>>());
}

}  // namespace torch_core
