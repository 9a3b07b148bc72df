// Fills one DispatchStub's slot for a device type (stub_kernels.cpp and its siblings).
#pragma once

#include <c10/core/DeviceType.h>
#include <c10/util/Exception.h>

namespace torch_core::engine {

// XPU's setter exists only in XPU builds of torch.
template <typename Stub, typename Fn>
void set_slot(Stub& stub, c10::DeviceType device_type, Fn kernel) {
  switch (device_type) {
    case c10::DeviceType::CUDA: return stub.set_cuda_dispatch_ptr(kernel);
    case c10::DeviceType::PrivateUse1: return stub.set_privateuse1_dispatch_ptr(kernel);
    case c10::DeviceType::HPU: return stub.set_hpu_dispatch_ptr(kernel);
    case c10::DeviceType::MTIA: return stub.set_mtia_dispatch_ptr(kernel);
    default:
      TORCH_CHECK(false, "torch_core cannot fill DispatchStubs for ", device_type,
                  ": the pinned torch has stub slots for CUDA, PrivateUse1, HPU and MTIA");
  }
}

}  // namespace torch_core::engine
