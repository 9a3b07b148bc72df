// torch_cuda's operators on the CUDA key: torch_core's generic kernels (factories,
// copies, views, set_, record_stream, ...) and the boxed CPU fallback with torch_core's
// policy (TORCH_CUDA_FALLBACK) for every operator without a CUDA kernel; on the sparse
// keys (SparseCUDA, SparseCsrCUDA), the sparse basics and the same fallback. Kernels of
// their own (csrc/aten, or the simulated variant's) register in further blocks.
// Static registrations: they run when the library loads (the target is alwayslink).
#include <torch/library.h>

#include "torch_core/csrc/aten/native_registration.h"
#include "torch_core/csrc/aten/sparse_registration.h"

TORCH_LIBRARY_IMPL(aten, CUDA, m) { torch_core::register_native_ops<c10::DeviceType::CUDA>(m); }

TORCH_LIBRARY_IMPL(_, CUDA, m) { torch_core::register_cpu_fallback<c10::DeviceType::CUDA>(m); }

TORCH_LIBRARY_IMPL(aten, SparseCUDA, m) { torch_core::register_sparse_coo_ops(m); }

TORCH_LIBRARY_IMPL(_, SparseCUDA, m) { torch_core::register_cpu_fallback<c10::DeviceType::CUDA>(m); }

TORCH_LIBRARY_IMPL(aten, SparseCsrCUDA, m) { torch_core::register_sparse_compressed_ops(m); }

TORCH_LIBRARY_IMPL(_, SparseCsrCUDA, m) { torch_core::register_cpu_fallback<c10::DeviceType::CUDA>(m); }
