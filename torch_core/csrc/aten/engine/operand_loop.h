// What a DispatchStub kernel hands a kernel engine: the iteration space of an ATen
// TensorIterator as plain data (sizes, per-operand pointers, byte strides and dtypes),
// so one description feeds the host engine (simulated devices, on a stream's worker)
// and the CUDA engine (torch_cuda, a GPU kernel's argument).
//
// Operand 0 is the output; at most kMaxOperands operands (index: out, self and up to four
// index tensors). A host scalar (a 0-dim CPU tensor that TensorIterator lets into a
// device op) is copied into the description, because the kernel runs after the caller
// may have freed it: bind_scalars() points its operand at that copy wherever the
// description now lives.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>

#include <c10/core/ScalarType.h>

#include "torch_core/csrc/aten/kernel_loop.h"

namespace torch_core::engine {

constexpr int kMaxOperands = 6;

struct OperandLoop {
  int ntensors = 0;
  loop::StridedLoop<kMaxOperands> loop;
  std::array<c10::ScalarType, kMaxOperands> dtypes{};
  // Host-scalar operands: their bytes, and whether operand i is one. Aligned for the
  // widest element (complex<double>): kernels load it as that type, and an optimised
  // build does so with aligned vector loads.
  alignas(16) std::array<std::array<unsigned char, 16>, kMaxOperands> scalar_bytes{};
  std::array<bool, kMaxOperands> is_host_scalar{};

  // Points every host-scalar operand at this object's copy of its value (stride 0).
  void bind_scalars() {
    for (int i = 0; i < ntensors; ++i) {
      if (!is_host_scalar[i]) continue;
      loop.data[i] = reinterpret_cast<char*>(scalar_bytes[i].data());
      for (int d = 0; d < loop.ndim; ++d) loop.strides[i][d] = 0;
    }
  }

  int64_t numel() const { return loop.numel(); }
};

// A reduce-mode OperandLoop split for folding: `outer` walks the kept dimensions (every
// operand; the input's pointer is where each output's slice starts), `inner` the reduced
// ones (the input's strides; its data pointer unused). A dimension is reduced where the
// first output has stride 0 and size > 1. Innermost dimensions last in both, so `inner`'s
// linear index is the position among the reduced elements that argmax reports.
struct ReductionLoops {
  loop::StridedLoop<kMaxOperands> outer;
  loop::StridedLoop<1> inner;
};

inline ReductionLoops split_reduction(const OperandLoop& d, int noutputs) {
  ReductionLoops r;
  r.outer.data = d.loop.data;
  for (int dim = 0; dim < d.loop.ndim; ++dim) {
    const int64_t size = d.loop.sizes[dim];
    if (d.loop.strides[0][dim] == 0 && size > 1) {
      const int k = r.inner.ndim++;
      r.inner.sizes[k] = size;
      r.inner.strides[0][k] = d.loop.strides[noutputs][dim];
    } else {
      const int k = r.outer.ndim++;
      r.outer.sizes[k] = size;
      for (int op = 0; op < kMaxOperands; ++op) r.outer.strides[op][k] = d.loop.strides[op][dim];
    }
  }
  return r;
}

}  // namespace torch_core::engine
