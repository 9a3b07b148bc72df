// Turning a failed cuBLAS call into an exception that says what failed and what to do,
// in the style of framework/cuda_check.h (TORCH_CUDA_CHECK).
#pragma once

#include <cublas_api.h>

#include <sstream>
#include <stdexcept>
#include <string>

namespace torch_cuda::blas {

class CublasError : public std::runtime_error {
 public:
  CublasError(cublasStatus_t status, const std::string& message) : std::runtime_error(message), status_(status) {}
  cublasStatus_t status() const { return status_; }

 private:
  cublasStatus_t status_;
};

[[noreturn]] inline void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line) {
  std::ostringstream message;
  message << "cuBLAS error: " << cublasGetStatusString(status) << " (" << cublasGetStatusName(status) << ") from "
          << call << " at " << file << ":" << line;
  if (status == CUBLAS_STATUS_NOT_INITIALIZED) {
    message << ". cuBLAS could not initialise: is there a CUDA device and a working driver?";
  } else if (status == CUBLAS_STATUS_EXECUTION_FAILED) {
    message << ". A kernel failed; the error may come from earlier work on the stream";
  }
  message << ". Kernel errors may be reported by a later call; for a precise location run with "
             "CUDA_LAUNCH_BLOCKING=1.";
  throw CublasError(status, message.str());
}

}  // namespace torch_cuda::blas

#define TORCH_CUDABLAS_CHECK(call)                                                        \
  do {                                                                                    \
    const cublasStatus_t torch_cudablas_status_ = (call);                                 \
    if (torch_cudablas_status_ != CUBLAS_STATUS_SUCCESS) {                                \
      ::torch_cuda::blas::throw_cublas_error(torch_cudablas_status_, #call, __FILE__, __LINE__); \
    }                                                                                     \
  } while (false)
