// copy_ and friends on a torch_core device: host <-> device, on one device, across devices
// of a type, and between device types (through the host).
//
// Transfers are runtime memcpys of contiguous bytes on the current stream of the device
// involved. Anything else is reduced to them:
// - dtype conversion happens on the host side (or via a host round trip for device to
//   device), where ATen's CPU copy does every conversion;
// - a strided device operand goes through a contiguous device temporary and the backend's
//   copy kernel (DeviceKernels::copy); without one, through a host copy of the storage
//   span it covers (read, or read-modify-write for a destination).
// Stream semantics follow CUDA: a copy from pageable host memory returns once the source is
// staged, a copy to host memory returns when the data is there unless it is a
// non_blocking copy into pinned memory, and pinned blocks are kept from reuse until
// the copies reading them ran (record_stream).
#include <algorithm>
#include <vector>

#include <ATen/EmptyTensor.h>
#include <ATen/ExpandUtils.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/ops/_copy_from_and_resize_native.h>
#include <ATen/ops/conj_physical.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/TensorOptions.h>
#include <c10/util/Exception.h>

#include "torch_core/csrc/aten/device_kernels.h"
#include "torch_core/csrc/aten/native_ops.h"
#include "torch_core/csrc/aten/op_support.h"
#include "torch_core/csrc/device/runtime_call.h"
#include "torch_core/csrc/runtime/current_device_scope.h"

namespace torch_core::native {

using aten_detail::backend_of;

namespace {

bool on_device(const at::Tensor& t) { return !t.is_cpu(); }

at::Tensor empty_device(c10::IntArrayRef sizes, c10::ScalarType dtype, const c10::Device& device) {
  return empty_memory_format(c10::fromIntArrayRefSlow(sizes), dtype, std::nullopt, device, std::nullopt,
                             std::nullopt);
}

at::Tensor empty_host(c10::IntArrayRef sizes, c10::ScalarType dtype) {
  return at::detail::empty_cpu(sizes, dtype, /*pin_memory=*/false, std::nullopt);
}

// Byte range [first, last) of the storage that a tensor's elements cover.
struct Span {
  int64_t first = 0;  // in elements, from the storage base
  int64_t last = 0;
};

Span span_of(const at::Tensor& t) {
  Span span{t.storage_offset(), t.storage_offset() + 1};
  for (int64_t d = 0; d < t.dim(); ++d) {
    const int64_t extent = (t.size(d) - 1) * t.stride(d);
    if (extent < 0) span.first += extent;
    else span.last += extent;
  }
  return span;
}

char* storage_base(const at::Tensor& t) {
  return static_cast<char*>(const_cast<void*>(t.storage().data()));
}

// dst (device, contiguous) = host (CPU, contiguous, same bytes).
void host_to_device(const at::Tensor& dst, const void* host, std::size_t bytes, bool non_blocking) {
  Backend& backend = backend_of(dst.device());
  const c10::DeviceIndex index = dst.device().index();
  const StreamHandle stream = backend.streams().current_handle(index);
  void* target = dst.data_ptr();
  runtime_call(backend.device_type(), [&] { backend.runtime().memcpy_async(target, host, bytes, CopyKind::kHostToDevice, stream); });
  // From pinned memory the copy really is asynchronous: keep the block until it ran, and
  // wait unless asked not to. Pageable memory was staged by memcpy_async already.
  if (backend.host_allocator().is_pinned(host)) {
    if (non_blocking) {
      backend.host_allocator().record_stream(host, index, stream);
    } else {
      runtime_call(backend.device_type(), [&] { backend.runtime().synchronize_stream(stream); });
    }
  }
}

// host (CPU, contiguous) = src (device, contiguous, same bytes).
void device_to_host(void* host, const at::Tensor& src, std::size_t bytes, bool non_blocking) {
  Backend& backend = backend_of(src.device());
  const c10::DeviceIndex index = src.device().index();
  const StreamHandle stream = backend.streams().current_handle(index);
  const void* source = src.const_data_ptr();
  runtime_call(backend.device_type(), [&] { backend.runtime().memcpy_async(host, source, bytes, CopyKind::kDeviceToHost, stream); });
  if (non_blocking && backend.host_allocator().is_pinned(host)) {
    backend.host_allocator().record_stream(host, index, stream);
    return;
  }
  runtime_call(backend.device_type(), [&] { backend.runtime().synchronize_stream(stream); });
}

// A CPU tensor with the values of `src` (a device tensor of any strides): its bytes, or
// those of the storage span it covers, copied to the host and viewed with its strides.
at::Tensor to_host(const at::Tensor& src) {
  const c10::DeviceGuard guard(src.device());
  if (src.is_contiguous()) {
    at::Tensor host = empty_host(src.sizes(), src.scalar_type());
    device_to_host(host.data_ptr(), src, src.nbytes(), /*non_blocking=*/false);
    return host;
  }
  const Span span = span_of(src);
  const auto itemsize = static_cast<int64_t>(src.element_size());
  at::Tensor buffer = empty_host({span.last - span.first}, src.scalar_type());
  Backend& backend = backend_of(src.device());
  const StreamHandle stream = backend.streams().current_handle(src.device().index());
  const char* source = storage_base(src) + span.first * itemsize;
  runtime_call(backend.device_type(), [&] {
    backend.runtime().memcpy_async(buffer.data_ptr(), source, static_cast<std::size_t>(buffer.nbytes()),
                                   CopyKind::kDeviceToHost, stream);
    backend.runtime().synchronize_stream(stream);
  });
  return buffer.as_strided(src.sizes(), src.strides(), src.storage_offset() - span.first);
}

// Same device: a memcpy when both are contiguous in one dtype, else the backend's kernel.
bool device_copy_fast(const at::Tensor& dst, const at::Tensor& src) {
  Backend& backend = backend_of(dst.device());
  const StreamHandle stream = backend.streams().current_handle(dst.device().index());
  if (dst.scalar_type() == src.scalar_type() && dst.is_contiguous() && src.is_contiguous()) {
    void* target = dst.data_ptr();
    const void* source = src.const_data_ptr();
    const auto bytes = static_cast<std::size_t>(dst.nbytes());
    runtime_call(backend.device_type(), [&] { backend.runtime().memcpy_async(target, source, bytes, CopyKind::kDeviceToDevice, stream); });
    return true;
  }
  DeviceKernels* kernels = device_kernels(dst.device().type());
  return kernels != nullptr && kernels->copy(dst, src, stream);
}

void copy_from_host(const at::Tensor& dst, at::Tensor host, bool non_blocking);

// dst and src on one device, any dtypes and strides.
void copy_same_device(const at::Tensor& dst, const at::Tensor& src) {
  const c10::DeviceGuard guard(dst.device());
  if (device_copy_fast(dst, src)) return;
  copy_from_host(dst, to_host(src), /*non_blocking=*/false);
}

// dst (device) = host (CPU), any dtypes and strides.
void copy_from_host(const at::Tensor& dst, at::Tensor host, bool non_blocking) {
  const c10::DeviceGuard guard(dst.device());
  if (host.scalar_type() != dst.scalar_type()) host = host.to(dst.scalar_type());
  if (dst.is_contiguous()) {
    host = host.contiguous();
    host_to_device(dst, host.const_data_ptr(), static_cast<std::size_t>(dst.nbytes()), non_blocking);
    return;
  }
  // Strided destination: a contiguous device temporary and the copy kernel...
  DeviceKernels* kernels = device_kernels(dst.device().type());
  if (kernels != nullptr) {
    at::Tensor staged = empty_device(dst.sizes(), dst.scalar_type(), dst.device());
    host = host.contiguous();
    host_to_device(staged, host.const_data_ptr(), static_cast<std::size_t>(staged.nbytes()), false);
    Backend& backend = backend_of(dst.device());
    if (kernels->copy(dst, staged, backend.streams().current_handle(dst.device().index()))) return;
  }
  // ... or read-modify-write of the storage span the destination covers.
  const Span span = span_of(dst);
  const auto itemsize = static_cast<int64_t>(dst.element_size());
  at::Tensor buffer = empty_host({span.last - span.first}, dst.scalar_type());
  Backend& backend = backend_of(dst.device());
  const StreamHandle stream = backend.streams().current_handle(dst.device().index());
  char* target = storage_base(dst) + span.first * itemsize;
  const auto bytes = static_cast<std::size_t>(buffer.nbytes());
  runtime_call(backend.device_type(), [&] {
    backend.runtime().memcpy_async(buffer.data_ptr(), target, bytes, CopyKind::kDeviceToHost, stream);
    backend.runtime().synchronize_stream(stream);
  });
  buffer.as_strided(dst.sizes(), dst.strides(), dst.storage_offset() - span.first).copy_(host);
  runtime_call(backend.device_type(), [&] {
    backend.runtime().memcpy_async(target, buffer.const_data_ptr(), bytes, CopyKind::kHostToDevice, stream);
  });
}

// host (CPU) = src (device), any dtypes and strides.
void copy_to_host(const at::Tensor& dst, const at::Tensor& src, bool non_blocking) {
  const c10::DeviceGuard guard(src.device());
  const bool direct = dst.is_contiguous() && src.is_contiguous() && dst.scalar_type() == src.scalar_type();
  if (direct) {
    device_to_host(dst.data_ptr(), src, static_cast<std::size_t>(dst.nbytes()), non_blocking);
    return;
  }
  dst.copy_(to_host(src));
}

// Devices of one type, different indices: contiguous same-dtype buffers, copied on the
// destination's current stream, ordered against the source's current stream both ways.
void copy_across_devices(const at::Tensor& dst, const at::Tensor& src) {
  at::Tensor source = src;
  if (source.scalar_type() != dst.scalar_type() || !source.is_contiguous()) {
    source = empty_device(src.sizes(), dst.scalar_type(), src.device());
    copy_same_device(source, src);
  }
  at::Tensor target = dst.is_contiguous() ? dst : empty_device(dst.sizes(), dst.scalar_type(), dst.device());

  Backend& backend = backend_of(dst.device());
  DeviceRuntime& runtime = backend.runtime();
  const c10::DeviceIndex src_index = src.device().index();
  const c10::DeviceIndex dst_index = dst.device().index();
  const StreamHandle src_stream = backend.streams().current_handle(src_index);
  const StreamHandle dst_stream = backend.streams().current_handle(dst_index);
  void* to = target.data_ptr();
  const void* from = source.const_data_ptr();
  const auto bytes = static_cast<std::size_t>(target.nbytes());
  // Each stream is used with its own device current (the runtime's rule: a default stream
  // names the current device's).
  runtime_call(backend.device_type(), [&] {
    // The copy waits for the work that produced `source`...
    EventHandle produced = runtime.create_event(src_index, /*enable_timing=*/false);
    {
      const CurrentDeviceScope on_source(runtime, src_index);
      runtime.record_event(produced, src_stream);
    }
    const CurrentDeviceScope on_destination(runtime, dst_index);
    runtime.stream_wait_event(dst_stream, produced);
    runtime.destroy_event(produced);
    runtime.memcpy_async(to, from, bytes, CopyKind::kDeviceToDevice, dst_stream);
    // ... and later work on the source's stream (reusing its memory) waits for the copy.
    EventHandle copied = runtime.create_event(dst_index, /*enable_timing=*/false);
    runtime.record_event(copied, dst_stream);
    {
      const CurrentDeviceScope on_source(runtime, src_index);
      runtime.stream_wait_event(src_stream, copied);
    }
    runtime.destroy_event(copied);
  });
  if (!target.is_same(dst)) copy_same_device(dst, target);
}

void copy_impl(const at::Tensor& dst, const at::Tensor& src_in, bool non_blocking) {
  TORCH_CHECK(dst.defined(), "copy_: the destination is undefined");
  TORCH_CHECK(src_in.defined(), "copy_: the source is undefined");
  if (dst.is_same(src_in)) return;
  // Stock's copy_ is a TensorIterator: the source broadcasts to the destination's shape,
  // with its messages, even when there is nothing to copy.
  if (src_in.sizes() != dst.sizes()) {
    const std::vector<int64_t> shape = at::infer_size(dst.sizes(), src_in.sizes());
    TORCH_CHECK(at::IntArrayRef(shape) == dst.sizes(), "output with shape ", dst.sizes(),
                " doesn't match the broadcast shape ", at::IntArrayRef(shape));
  }
  if (dst.numel() == 0) return;
  TORCH_CHECK(!dst.is_conj() && !dst.is_neg(), "copy_ into a ", dst.device(),
              " tensor with the conjugate or negative bit set is not supported");
  at::assert_no_internal_overlap(dst);

  at::Tensor src = src_in;
  if (src.sizes() != dst.sizes()) src = src.expand(dst.sizes());
  // A conjugate or negative view is copied as its plain data, then the bit is applied to
  // the destination in place. (resolve_conj()/resolve_neg() would not do: they copy_ into
  // a fresh tensor, which calls back here with the same source, forever.)
  const bool conjugate = src.is_conj();
  const bool negate = src.is_neg();
  if (conjugate) src = src.conj();       // clears the bit: a view of the stored data
  if (negate) src = src._neg_view();     // likewise
  // As stock's TensorIterator: a source that partly overlaps the destination is an error;
  // one that is the destination's memory exactly (a conjugate or negative view of it) is
  // read out first.
  if (on_device(src) && on_device(dst) && src.device() == dst.device()) at::assert_no_partial_overlap(dst, src);
  if (on_device(src) && on_device(dst) && src.device() == dst.device() &&
      at::get_overlap_status(dst, src) != at::MemOverlapStatus::No) {
    at::Tensor copy = empty_device(src.sizes(), src.scalar_type(), src.device());
    copy_same_device(copy, src);
    src = copy;
  }

  if (!on_device(src)) {
    copy_from_host(dst, src, non_blocking);
  } else if (!on_device(dst)) {
    copy_to_host(dst, src, non_blocking);
  } else if (dst.device().type() != src.device().type()) {
    copy_from_host(dst, to_host(src), /*non_blocking=*/false);
  } else if (dst.device() == src.device()) {
    copy_same_device(dst, src);
  } else {
    copy_across_devices(dst, src);
  }
  // Out-of-place form: conj_physical_ calls CPU/CUDA kernel stubs directly; the .out
  // overload dispatches (to the device's kernel or the CPU fallback).
  if (conjugate) {
    at::Tensor out = dst;  // a handle: conj_physical_out takes a mutable reference
    at::conj_physical_out(out, dst);
  }
  if (negate) dst.neg_();
}

}  // namespace

at::Tensor& copy_(at::Tensor& self, const at::Tensor& src, bool non_blocking) {
  copy_impl(self, src, non_blocking);
  return self;
}

at::Tensor _copy_from(const at::Tensor& self, const at::Tensor& dst, bool non_blocking) {
  copy_impl(dst, self, non_blocking);
  return dst;
}

// What the CPU fallback uses to write results back into device tensors.
at::Tensor _copy_from_and_resize(const at::Tensor& self, const at::Tensor& dst) {
  resize_(dst, self.sym_sizes(), std::nullopt);
  copy_impl(dst, self, /*non_blocking=*/false);
  return dst;
}

}  // namespace torch_core::native
