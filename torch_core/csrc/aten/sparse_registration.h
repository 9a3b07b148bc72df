// Sparse COO tensors on a backend's device: the kernels of its sparse dispatch key
// (SparseCUDA, SparsePrivateUse1) that everything else stands on. They are stock's own
// device-generic sparse functions, which it registers for SparseCPU and SparseCUDA alike:
// construction and resizing, the indices/values accessors, copies, clone, zero_ and
// to_dense (which scatters the values with device operators). Every other sparse operator
// runs on the CPU through the key's fallback, which moves sparse arguments with these:
//
//   TORCH_LIBRARY_IMPL(aten, SparseCUDA, m) { torch_core::register_sparse_coo_ops(m); }
//   TORCH_LIBRARY_IMPL(_, SparseCUDA, m) {
//     torch_core::register_cpu_fallback<c10::DeviceType::CUDA>(m);
//   }
#pragma once

#include <torch/library.h>

namespace torch_core {

void register_sparse_coo_ops(torch::Library& m);

}  // namespace torch_core
