// What differs between the two builds of torch_cuda: the runtime under the backend and
// the kernel engine on it. Everything else (backend registration
// on the CUDA key, CUDA hooks, operator registration, the _CUDAC module) is written once
// over this interface.
//
// Declared here, defined by exactly one variant library linked into the extension:
//   //third_device/torch_cuda:real_variant              CudaRuntime over cudart
//   //third_device/torch_cuda/simulated:simulated_variant  torch_core::SimulatedRuntime and
//                                                         the host engine (runs in CI)
// A link-time choice (as XLA's stream_executor platforms): no #ifdef in the shared
// sources, and each variant is a separate target that a wheel picks.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "torch_core/csrc/runtime/device_runtime.h"

namespace torch_cuda::variant {

// "cudart" or "simulated".
const char* name();
// Makes the runtime on first use of the device (torch_core::LazyRuntime's factory).
std::unique_ptr<torch_core::DeviceRuntime> make_runtime();
// Registers what runs torch_core's stub kernels on the CUDA key (the CUDA engine, or
// torch_core's host engine on the simulated runtime) and where the device libraries'
// executors take their memory from.
void register_kernels();
// cudart's version as CUDART_VERSION spells it (13050), from the build.
long cudart_version();
// The compute capability (major, minor) of `device` as torch.cuda and stock's checks see
// it: the GPU's own, or, simulated, the newest architecture the build has kernels for (the
// simulated device runs them all).
std::pair<int, int> compute_capability(int device);
// The calling thread's cuBLAS handle for the current device, bound to `stream`
// (torch.cuda.current_blas_handle); throws where the variant has no cuBLAS.
std::uintptr_t current_blas_handle(torch_core::StreamHandle stream);
// The calling thread's cuSOLVER handle for the current device, bound to `stream`
// (torch.cuda.current_solver_handle); throws where the variant has no cuSOLVER.
std::uintptr_t current_solver_handle(torch_core::StreamHandle stream);
// Gives the cuBLAS workspaces back (torch._C._cuda_clearCublasWorkspaces).
void clear_blas_workspaces();

}  // namespace torch_cuda::variant
