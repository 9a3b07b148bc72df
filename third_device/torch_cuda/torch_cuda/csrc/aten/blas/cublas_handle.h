// cuBLAS handles: one per thread and device (framework/handle_pool.h: a process-wide pool
// that threads lease from and give back to at exit), bound to the caller's stream, each
// with a workspace per stream (as ATen's getCurrentCUDABlasHandle).
//
// The workspace (cublasSetWorkspace) is per (handle, stream): two streams sharing one
// workspace could run kernels that use it at the same time. Its size is workspace_size.h's
// (set by the program, CUBLAS_WORKSPACE_CONFIG, or ATen's default); a workspace of an older
// size is replaced the next time its pair is bound. It comes from the installed
// WorkspaceAllocator: torch_cuda installs the caching allocator's, as ATen takes its
// workspaces from CUDACachingAllocator (counted in memory stats; out of memory frees the
// cache and retries before it raises); torch-free callers get cudaMalloc.
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstddef>

namespace torch_cuda::blas {

// Device memory of `bytes` on the current device, usable on the current stream in stream
// order; throws when there is none. `release` gives it back, stream-ordered on the stream
// it was allocated for.
struct WorkspaceAllocator {
  void* (*allocate)(std::size_t bytes);
  void (*release)(void* memory);
};
// Installs where later workspaces come from (those made already go back to the old one).
void set_workspace_allocator(WorkspaceAllocator allocator);

// The calling thread's handle for the current device (cudaGetDevice), bound to `stream`
// with that stream's workspace. Throws CudaError or CublasError (without a device:
// CudaError from cudaGetDevice, or CublasError CUBLAS_STATUS_NOT_INITIALIZED).
cublasHandle_t current_handle(cudaStream_t stream);

// What a cublasLtMatmul on `stream` runs with: the calling thread's handle for the current
// device (a cublasHandle_t serves as a cublasLtHandle_t: cuBLAS's documentation; ATen does
// the same) and the Lt workspace (workspace_size.h): a part of that handle's cuBLAS
// workspace for `stream` when unified, otherwise one of its own per (handle, stream).
struct LtBinding {
  cublasLtHandle_t handle;
  void* workspace;
  std::size_t workspace_bytes;
};
LtBinding current_lt_binding(cudaStream_t stream);

// Gives every workspace back (torch._C._cuda_clearCublasWorkspaces); a handle gets a new
// one the next time it is bound.
void clear_workspaces();

// The number of handles created so far, across threads and devices (for tests).
std::size_t created_handle_count();

}  // namespace torch_cuda::blas
