// cuSOLVER's dense handles (the real variant), as ATen's getCurrentCUDASolverDnHandle:
// one per thread and device (framework/handle_pool.h), bound to the caller's stream on
// every lease.
#pragma once

#include <cuda_runtime_api.h>
#include <cusolverDn.h>

#include <string>

namespace torch_cuda::solver {

// Throws std::runtime_error naming the call and the status, and what to do where there is
// something to do (no device or driver, out of memory).
void check_cusolver(cusolverStatus_t status, const char* call);

// The calling thread's handle for the current device (cudaGetDevice), bound to `stream`.
cusolverDnHandle_t current_handle(cudaStream_t stream);

}  // namespace torch_cuda::solver
