// Factories, resizing and storage sharing on a torch_core device.
#include <ATen/EmptyTensor.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/set_native.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/DispatchKeySet.h>
#include <c10/core/TensorOptions.h>
#include <c10/util/Exception.h>

#include "torch_core/csrc/aten/native_ops.h"
#include "torch_core/csrc/aten/op_support.h"
#include "torch_core/csrc/device/storage_resize.h"

namespace torch_core::native {

using aten_detail::backend_of;

namespace {

c10::Device device_for_factory(std::optional<c10::Device> device, std::optional<c10::Layout> layout,
                               std::optional<bool> pin_memory) {
  TORCH_CHECK(device.has_value(), "a device factory was called without a device");
  TORCH_CHECK(c10::layout_or_default(layout) == c10::Layout::Strided, "only strided tensors can be made on ",
              *device, ", got layout ", c10::layout_or_default(layout));
  TORCH_CHECK(!c10::pinned_memory_or_default(pin_memory), "only CPU tensors can be pinned, not ", *device,
              " ones");
  return *device;
}

c10::DispatchKeySet key_set_for(const c10::Device& device) {
  return c10::DispatchKeySet(c10::computeDispatchKey(std::nullopt, c10::kStrided, device));
}

}  // namespace

at::Tensor empty_memory_format(c10::SymIntArrayRef size, std::optional<c10::ScalarType> dtype,
                               std::optional<c10::Layout> layout, std::optional<c10::Device> device,
                               std::optional<bool> pin_memory,
                               std::optional<c10::MemoryFormat> memory_format) {
  const c10::Device where = device_for_factory(device, layout, pin_memory);
  Backend& backend = backend_of(where);
  const c10::DeviceGuard guard(c10::Device(where.type(), backend.checked_index(where.index())));
  return at::detail::empty_generic(C10_AS_INTARRAYREF_SLOW(size), &backend.allocator(), key_set_for(where),
                                   c10::dtype_or_default(dtype), memory_format);
}

at::Tensor empty_strided(c10::SymIntArrayRef size, c10::SymIntArrayRef stride,
                         std::optional<c10::ScalarType> dtype, std::optional<c10::Layout> layout,
                         std::optional<c10::Device> device, std::optional<bool> pin_memory) {
  const c10::Device where = device_for_factory(device, layout, pin_memory);
  Backend& backend = backend_of(where);
  const c10::DeviceGuard guard(c10::Device(where.type(), backend.checked_index(where.index())));
  return at::detail::empty_strided_generic(C10_AS_INTARRAYREF_SLOW(size), C10_AS_INTARRAYREF_SLOW(stride),
                                           &backend.allocator(), key_set_for(where),
                                           c10::dtype_or_default(dtype));
}

namespace {

// Grows the storage of `self` to hold `bytes` (never shrinks: as the CPU resize).
void ensure_storage_bytes(const at::Tensor& self, std::size_t bytes) {
  c10::StorageImpl* storage = self.unsafeGetTensorImpl()->unsafe_storage().unsafeGetStorageImpl();
  if (storage != nullptr && bytes > storage->nbytes()) resize_device_storage(*storage, bytes);
}

}  // namespace

const at::Tensor& resize_(const at::Tensor& self, c10::SymIntArrayRef size,
                          std::optional<c10::MemoryFormat> memory_format) {
  const c10::IntArrayRef sizes = C10_AS_INTARRAYREF_SLOW(size);
  c10::TensorImpl* impl = self.unsafeGetTensorImpl();
  const c10::DeviceGuard guard(self.device());
  if (impl->sizes() != sizes) {
    impl->set_sizes_contiguous(sizes);
    if (impl->numel() > 0) {
      ensure_storage_bytes(self, at::detail::computeStorageNbytesContiguous(
                                     sizes, self.dtype().itemsize(), static_cast<size_t>(impl->storage_offset())));
    }
  }
  if (memory_format.has_value()) {
    TORCH_CHECK(*memory_format != c10::MemoryFormat::Preserve,
                "Unsupported memory format ", *memory_format);
    impl->empty_tensor_restride(*memory_format);
  }
  return self;
}

at::Tensor& set_source_storage_offset_(at::Tensor& self, c10::Storage source, c10::SymInt storage_offset,
                                       c10::SymIntArrayRef size, c10::SymIntArrayRef stride) {
  const int64_t offset = storage_offset.expect_int();
  const c10::IntArrayRef sizes = C10_AS_INTARRAYREF_SLOW(size);
  const c10::IntArrayRef strides = C10_AS_INTARRAYREF_SLOW(stride);
  at::native::checkSetStorage(self, std::move(source), offset, sizes, strides);
  const std::size_t itemsize = self.dtype().itemsize();
  // As the CPU kernel: an empty stride list means contiguous; the storage grows to fit.
  if (strides.data() != nullptr && !strides.empty()) {
    self.unsafeGetTensorImpl()->set_sizes_and_strides(sizes, strides, offset);
  } else {
    self.unsafeGetTensorImpl()->set_storage_offset(offset);
    self.unsafeGetTensorImpl()->set_sizes_contiguous(sizes);
  }
  if (self.numel() > 0) {
    const std::size_t needed =
        strides.data() != nullptr && !strides.empty()
            ? at::detail::computeStorageNbytes(sizes, strides, itemsize, static_cast<size_t>(offset))
            : at::detail::computeStorageNbytesContiguous(sizes, itemsize, static_cast<size_t>(offset));
    ensure_storage_bytes(self, needed);
  }
  return self;
}

// ATen's kernels for these two only re-dispatch to the overload above.
at::Tensor& set_source_storage_(at::Tensor& self, c10::Storage source) {
  return at::native::set_(self, std::move(source));
}

at::Tensor& set_source_tensor_(at::Tensor& self, const at::Tensor& source) {
  return at::native::set_tensor_(self, source);
}

void record_stream(at::Tensor& self, c10::Stream stream) {
  Backend& backend = backend_of(stream.device());
  TORCH_CHECK(self.device().type() == stream.device_type(), "record_stream: a ", self.device(),
              " tensor cannot be recorded on a ", stream.device(), " stream");
  backend.allocator().recordStream(self.storage().data_ptr(), stream);
}

}  // namespace torch_core::native
