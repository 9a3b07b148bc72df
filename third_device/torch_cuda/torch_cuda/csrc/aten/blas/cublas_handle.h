// cuBLAS handles: one per thread and device, bound to the caller's stream, each with a
// workspace per stream (as ATen's getCurrentCUDABlasHandle).
//
// A handle is not thread-safe, and cublasSetStream on a shared one would race, so each
// thread leases its own per device from a process-wide pool; a thread that exits gives
// its handles back for the next thread rather than destroying them. The pool is never
// destroyed: destroying handles at process exit races the CUDA driver's own teardown (as
// ATen, which leaks them too).
//
// The workspace (cublasSetWorkspace) is per (handle, stream): two streams sharing one
// workspace could run kernels that use it at the same time. Its size is
// CUBLAS_WORKSPACE_CONFIG's (":SIZE_KiB:COUNT" pairs, e.g. ":4096:8"), or ATen's default:
// 32 MiB on sm_90 and newer, 4096 KiB x 2 + 16 KiB x 8 before. It comes from the
// installed WorkspaceAllocator: torch_cuda installs the caching allocator's, as ATen takes
// its workspaces from CUDACachingAllocator (counted in memory stats; out of memory frees
// the cache and retries before it raises); torch-free callers get cudaMalloc.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <optional>

namespace torch_cuda::blas {

// Device memory of `bytes` on the current device that stays valid for the process;
// throws when there is none.
using WorkspaceAllocator = void* (*)(std::size_t bytes);
// Installs where later workspaces come from (those made already are kept).
void set_workspace_allocator(WorkspaceAllocator allocate);

// The calling thread's handle for the current device (cudaGetDevice), bound to `stream`
// with that stream's workspace. Throws CudaError or CublasError (without a device:
// CudaError from cudaGetDevice, or CublasError CUBLAS_STATUS_NOT_INITIALIZED).
cublasHandle_t current_handle(cudaStream_t stream);

// CUBLAS_WORKSPACE_CONFIG's size in bytes; nullopt when `config` is null, empty or not
// of the form ":SIZE:COUNT[:SIZE:COUNT...]" (then the default applies).
std::optional<std::size_t> parse_workspace_config(const char* config);

// The default workspace size for a device of compute capability `major`.x.
std::size_t default_workspace_bytes(int major);

// The number of handles created so far, across threads and devices (for tests).
std::size_t created_handle_count();

}  // namespace torch_cuda::blas
