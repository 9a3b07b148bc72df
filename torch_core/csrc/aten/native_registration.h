// Registering torch_core's generic kernels on a backend's dispatch key. A backend writes
//
//   TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
//     torch_core::register_native_ops<c10::DeviceType::PrivateUse1>(m);
//   }
//   TORCH_LIBRARY_IMPL(_, PrivateUse1, m) {
//     torch_core::register_cpu_fallback<c10::DeviceType::PrivateUse1>(m);
//   }
//
// and adds its own kernels in further TORCH_LIBRARY_IMPL(aten, Key, m) blocks.
#pragma once

#include <array>

#include <c10/core/DeviceType.h>
#include <torch/library.h>

#include "torch_core/csrc/aten/cpu_fallback.h"

namespace torch_core {

// The ops the CPU fallback cannot stand in for (reference/cuda-key-probe): factories,
// resize_, copies, views, set_, record_stream, _local_scalar_dense, fill_, zero_. The
// same kernels serve every device type.
void register_device_generic_ops(torch::Library& m);

// Operators whose default kernel (CompositeExplicitAutograd) is device-generic C++ that
// ends in a DispatchStub filled only by in-tree backends (conj_physical_). The boxed
// fallback only serves operators without any kernel for the key, so it is registered for
// these by name: they run on the CPU, counted and under the policy, and autograd still
// records them (its kernels sit above the device key). (Convolution, which ends in such
// stubs or in convolution_overrideable, has kernels of its own: composite/convolution.cpp.)
inline constexpr std::array<const char*, 1> kCompositeOpsRunOnCpu = {"conj_physical_"};

// All of torch_core's kernels for a backend's key: the generic ops, and the CPU fallback
// for kCompositeOpsRunOnCpu.
template <c10::DeviceType kDeviceType>
void register_native_ops(torch::Library& m) {
  register_device_generic_ops(m);
  for (const char* op : kCompositeOpsRunOnCpu) {
    m.impl(op, torch::CppFunction::makeFromBoxedFunction<&cpu_fallback<kDeviceType>>());
  }
}

template <c10::DeviceType kDeviceType>
void register_cpu_fallback(torch::Library& m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&cpu_fallback<kDeviceType>>());
}

}  // namespace torch_core
