// torch_core's DispatchStub kernels: one function per stock stub (sin_stub, add_stub,
// where_kernel, ...) that describes the stub's TensorIterator and hands it to the kernel
// engine of the iterator's device type. stub_operators.txt lists the operators that run
// on these stubs alone, the list a backend's generated registrations are made from.
#pragma once

#include <cstddef>
#include <optional>

#include <ATen/TensorIterator.h>
#include <ATen/core/List.h>
#include <c10/core/DeviceType.h>

#include "torch_core/csrc/aten/engine/elementwise_call.h"
#include "torch_core/csrc/aten/engine/index_call.h"

namespace torch_core::engine {

// Points each stub's slot for `device_type` (CUDA, PrivateUse1, HPU or MTIA) at these
// kernels. Called by register_kernel_engine.
void fill_stubs(c10::DeviceType device_type);

// Fills the random-number stubs (uniform_stub, normal_stub, bernoulli_*_stub, random_*,
// ...; random_stub_kernels.cpp).
void fill_random_stubs(c10::DeviceType device_type);
// Fills sort_stub (sort_stub_kernels.cpp).
void fill_sort_stubs(c10::DeviceType device_type);
// Fills cumsum_stub and cumprod_stub (scan_stub_kernels.cpp).
void fill_scan_stubs(c10::DeviceType device_type);
// Fills gather_stub, scatter_stub, scatter_fill_stub and scatter_add_stub
// (scatter_gather_stub_kernels.cpp).
void fill_scatter_gather_stubs(c10::DeviceType device_type);
// Fills the special-function, polynomial and binary-math stubs, conj_physical, sgn,
// round_decimals, signbit and nan_to_num (math_stub_kernels.cpp).
void fill_math_stubs(c10::DeviceType device_type);
// Fills the regression-loss stubs, renorm_scale_factor_stub and angle_stub
// (loss_stub_kernels.cpp).
void fill_loss_stubs(c10::DeviceType device_type);
// Fills isin_default_stub (isin_stub_kernel.cpp).
void fill_isin_stub(c10::DeviceType device_type);
// Fills cross_stub (cross_stub_kernel.cpp).
void fill_cross_stub(c10::DeviceType device_type);
// Fills torch.nn.functional's other activation stubs (activation_stub_kernels.cpp).
void fill_activation_stubs(c10::DeviceType device_type);
// Fills take_stub, put_stub, index_fill_stub and index_copy_stub
// (index_copy_stub_kernels.cpp).
void fill_index_copy_stubs(c10::DeviceType device_type);
// Fills unfold_backward_stub (unfold_backward_stub_kernel.cpp).
void fill_unfold_backward_stub(c10::DeviceType device_type);

// Device memory of `bytes` on `device` for an engine call's scratch (sort, scan): held by
// the returned byte tensor (undefined for 0 bytes), which the caller drops after queueing
// the call; the caching allocator orders its reuse after the call on the same stream.
at::Tensor engine_scratch(c10::Device device, std::size_t bytes, void*& data);

// `t` with `dim` moved last (a 0-dim tensor as one element): how the sort and scan
// kernels gather a dimension into segments, and write their results back.
at::Tensor dim_last(const at::Tensor& t, int64_t dim);

// Runs `call` over `iter` on the engine of its device type: what each stub kernel does,
// and what a kernel that is not behind a stub (composite/activation.cpp's gelu) calls.
// (A library outside libtorch cannot call a DispatchStub: its dispatch is not exported.)
void run_elementwise(at::TensorIteratorBase& iter, const ElementwiseCall& call);

// Runs an advanced-indexing kernel: `sizes` and byte `strides` of the indexed dimensions.
void run_index(at::TensorIteratorBase& iter, IndexKind kind, at::IntArrayRef sizes, at::IntArrayRef strides,
               bool wrap_negative = true);

// index_put_with_sort_stub's kernel (index_put_accumulate.cpp).
void index_put_with_sort_kernel(at::Tensor& self, const c10::List<std::optional<at::Tensor>>& indices,
                                const at::Tensor& value, bool accumulate, bool unsafe);

}  // namespace torch_core::engine
