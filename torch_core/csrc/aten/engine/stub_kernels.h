// torch_core's DispatchStub kernels: one function per stock stub (sin_stub, add_stub,
// where_kernel, ...) that describes the stub's TensorIterator and hands it to the kernel
// engine of the iterator's device type. stub_operators.txt lists the operators that run
// on these stubs alone, the list a backend's generated registrations are made from.
#pragma once

#include <c10/core/DeviceType.h>

namespace torch_core::engine {

// Points each stub's slot for `device_type` (CUDA, PrivateUse1, HPU or MTIA) at these
// kernels. Called by register_kernel_engine.
void fill_stubs(c10::DeviceType device_type);

}  // namespace torch_core::engine
