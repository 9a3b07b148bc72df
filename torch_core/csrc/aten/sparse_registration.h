// Sparse tensors on a backend's device: the kernels of its sparse dispatch keys that
// everything else stands on, COO (SparseCUDA, SparsePrivateUse1) and the compressed layouts
// CSR, CSC, BSR, BSC (SparseCsrCUDA, SparseCsrPrivateUse1). They are stock's own
// device-generic sparse functions, which it registers for the CPU's and CUDA's sparse keys
// alike: construction and resizing, the index and value accessors, copies, clone, zero_,
// to_dense (which scatters the values with device operators) and the conversions between
// sparse layouts; and torch.sparse.mm's reducing kernel on the CPU with its inputs'
// requires_grad kept (sparse_registration.cpp says why). Every other sparse operator runs on
// the CPU's sparse kernels through the key's fallback, which moves sparse arguments with
// these:
//
//   TORCH_LIBRARY_IMPL(aten, SparseCUDA, m) { torch_core::register_sparse_coo_ops(m); }
//   TORCH_LIBRARY_IMPL(_, SparseCUDA, m) {
//     torch_core::register_cpu_fallback<c10::DeviceType::CUDA>(m);
//   }
//
// and the same with register_sparse_compressed_ops on SparseCsrCUDA.
#pragma once

#include <torch/library.h>

namespace torch_core {

void register_sparse_coo_ops(torch::Library& m);
void register_sparse_compressed_ops(torch::Library& m);

}  // namespace torch_core
