// The device kernels torch_core's generic ops need from a backend, and where a backend
// registers them (its Backend holds them).
//
// Everything else in the generic ops is runtime calls (allocate, memcpy, events); these
// two need a kernel on the device. A backend without them still works: the generic ops
// then stage through host memory (slower, and synchronous).
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/DeviceType.h>
#include <c10/core/Scalar.h>

#include "torch_core/csrc/runtime/runtime_handles.h"

namespace torch_core {

class DeviceKernels {
 public:
  virtual ~DeviceKernels() = default;
  // dst = src elementwise, queued on `stream`; dst and src are on one device, have the
  // same sizes, any strides and dtypes. Returns false (nothing queued) when the kernel
  // cannot do it (a dtype conversion, say), and the caller takes the host path.
  virtual bool copy(const at::Tensor& dst, const at::Tensor& src, StreamHandle stream) = 0;
  // Every element of `self` = value, queued on `stream`; false as above.
  virtual bool fill(const at::Tensor& self, const c10::Scalar& value, StreamHandle stream) = 0;
};

// `kernels` must live for the rest of the process; registering again replaces. The
// backend of `device_type` must exist (c10::Error otherwise).
void register_device_kernels(c10::DeviceType device_type, DeviceKernels* kernels);
// nullptr when the backend registered none.
DeviceKernels* device_kernels(c10::DeviceType device_type) noexcept;

}  // namespace torch_core
