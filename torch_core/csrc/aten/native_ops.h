// torch_core's generic native ops: the kernels every backend needs before the CPU
// fallback can run anything (reference/cuda-key-probe: factories, resize_, copies, views,
// set_, record_stream), written once over the Backend of the tensor's device type.
//
// Each function has the signature of its ATen schema, so a backend registers them
// directly on its dispatch key (native_registration.h does all of them).
#pragma once

#include <optional>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <c10/core/Layout.h>
#include <c10/core/MemoryFormat.h>
#include <c10/core/Scalar.h>
#include <c10/core/ScalarType.h>
#include <c10/core/Storage.h>
#include <c10/core/Stream.h>
#include <c10/core/SymInt.h>
#include <c10/core/SymIntArrayRef.h>

namespace torch_core::native {

// --- Factories and storage (memory_ops.cpp) -------------------------------------------
at::Tensor empty_memory_format(c10::SymIntArrayRef size, std::optional<c10::ScalarType> dtype,
                               std::optional<c10::Layout> layout, std::optional<c10::Device> device,
                               std::optional<bool> pin_memory,
                               std::optional<c10::MemoryFormat> memory_format);
at::Tensor empty_strided(c10::SymIntArrayRef size, c10::SymIntArrayRef stride,
                         std::optional<c10::ScalarType> dtype, std::optional<c10::Layout> layout,
                         std::optional<c10::Device> device, std::optional<bool> pin_memory);
const at::Tensor& resize_(const at::Tensor& self, c10::SymIntArrayRef size,
                          std::optional<c10::MemoryFormat> memory_format);
at::Tensor& set_source_storage_(at::Tensor& self, c10::Storage source);
at::Tensor& set_source_storage_offset_(at::Tensor& self, c10::Storage source, c10::SymInt storage_offset,
                                       c10::SymIntArrayRef size, c10::SymIntArrayRef stride);
at::Tensor& set_source_tensor_(at::Tensor& self, const at::Tensor& source);
void record_stream(at::Tensor& self, c10::Stream stream);

// --- Copies (copy_ops.cpp) --------------------------------------------------------------
// Host <-> device, device <-> device on one device or across devices, any dtypes and
// strides; src broadcasts to self.
at::Tensor& copy_(at::Tensor& self, const at::Tensor& src, bool non_blocking);
at::Tensor _copy_from(const at::Tensor& self, const at::Tensor& dst, bool non_blocking);
at::Tensor _copy_from_and_resize(const at::Tensor& self, const at::Tensor& dst);

// --- Scalars (scalar_ops.cpp) -----------------------------------------------------------
c10::Scalar _local_scalar_dense(const at::Tensor& self);
at::Tensor& fill_scalar_(at::Tensor& self, const c10::Scalar& value);
at::Tensor& zero_(at::Tensor& self);

// --- Views (view_ops.cpp): ATen's own device-generic view kernels ----------------------
at::Tensor view(const at::Tensor& self, c10::SymIntArrayRef size);
at::Tensor as_strided(const at::Tensor& self, c10::SymIntArrayRef size, c10::SymIntArrayRef stride,
                      std::optional<c10::SymInt> storage_offset);
at::Tensor _reshape_alias(const at::Tensor& self, c10::SymIntArrayRef size, c10::SymIntArrayRef stride);
at::Tensor unfold(const at::Tensor& self, int64_t dimension, int64_t size, int64_t step);
at::Tensor view_as_real(const at::Tensor& self);
at::Tensor view_as_complex(const at::Tensor& self);

}  // namespace torch_core::native
