#include "torch_core/csrc/aten/engine/iterator_loop.h"

#include <cstring>

#include <c10/util/Exception.h>

#include "torch_core/csrc/device/backend.h"

namespace torch_core::engine {

OperandLoop describe(const at::TensorIteratorBase& iter) {
  OperandLoop d;
  d.ntensors = iter.ntensors();
  TORCH_CHECK(d.ntensors <= kMaxOperands, "torch_core's kernel engine takes at most ", kMaxOperands,
              " operands, got ", d.ntensors);
  const int ndim = iter.ndim();
  TORCH_CHECK(ndim <= loop::kMaxDims, "torch_core's kernel engine takes at most ", loop::kMaxDims,
              " dimensions after coalescing, got ", ndim);
  d.loop.ndim = ndim;
  const auto shape = iter.shape();  // fastest dimension first
  for (int i = 0; i < ndim; ++i) d.loop.sizes[ndim - 1 - i] = shape[i];
  for (int op = 0; op < d.ntensors; ++op) {
    d.dtypes[op] = iter.dtype(op);
    d.loop.data[op] = static_cast<char*>(iter.data_ptr(op));
    const auto strides = iter.strides(op);
    for (int i = 0; i < ndim; ++i) d.loop.strides[op][ndim - 1 - i] = strides[i];
    if (iter.is_cpu_scalar(op)) {
      const auto bytes = c10::elementSize(d.dtypes[op]);
      TORCH_INTERNAL_ASSERT(bytes <= d.scalar_bytes[op].size(), "host scalar of ", bytes, " bytes");
      std::memcpy(d.scalar_bytes[op].data(), d.loop.data[op], bytes);
      d.is_host_scalar[op] = true;
    }
  }
  return d;
}

StreamHandle current_stream(const at::TensorIteratorBase& iter) { return current_stream(iter.device()); }

StreamHandle current_stream(c10::Device device) {
  return Backend::get(device.type()).streams().current_handle(device.index());
}

}  // namespace torch_core::engine
