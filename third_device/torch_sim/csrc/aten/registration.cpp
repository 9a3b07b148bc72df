// The simulated device's operator registrations on PrivateUse1: torch_core's generic
// kernels and the CPU fallback for everything else; on the sparse keys (SparsePrivateUse1,
// SparseCsrPrivateUse1), the sparse basics and the same fallback. Stock ATen's
// device-generic operators are registered by the generated library beside this one (BUILD:
// generated_registrations) and run on torch_core's host engine.
// (Static registrations: they run when the backend library is loaded; the target that
// holds this file is alwayslink.)
#include <torch/library.h>

#include "torch_core/csrc/aten/native_registration.h"
#include "torch_core/csrc/aten/sparse_registration.h"

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  torch_core::register_native_ops<c10::DeviceType::PrivateUse1>(m);
}

TORCH_LIBRARY_IMPL(_, PrivateUse1, m) {
  torch_core::register_cpu_fallback<c10::DeviceType::PrivateUse1>(m);
}

TORCH_LIBRARY_IMPL(aten, SparsePrivateUse1, m) { torch_core::register_sparse_coo_ops(m); }

TORCH_LIBRARY_IMPL(_, SparsePrivateUse1, m) {
  torch_core::register_cpu_fallback<c10::DeviceType::PrivateUse1>(m);
}

TORCH_LIBRARY_IMPL(aten, SparseCsrPrivateUse1, m) { torch_core::register_sparse_compressed_ops(m); }

TORCH_LIBRARY_IMPL(_, SparseCsrPrivateUse1, m) {
  torch_core::register_cpu_fallback<c10::DeviceType::PrivateUse1>(m);
}
