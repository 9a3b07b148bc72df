// Turning a failed cudart call into an exception that says what failed and what to do.
#pragma once

#include <cuda_runtime_api.h>

#include <sstream>
#include <stdexcept>
#include <string>

namespace torch_cuda {

class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

[[noreturn]] inline void throw_cuda_error(cudaError_t code, const char* call, const char* file,
                                          int line) {
  // The exception reports the error, so clear it from cudart's per-thread last-error
  // state: otherwise the next launch check (cudaGetLastError) would report it again, as
  // if that launch had failed. Sticky errors (a corrupted context) are not cleared by
  // this and keep failing every later call, as they should.
  cudaGetLastError();
  std::ostringstream message;
  message << "CUDA error: " << cudaGetErrorString(code) << " (" << cudaGetErrorName(code)
          << ") from " << call << " at " << file << ":" << line
          << ". Kernel errors may be reported by a later call; for a precise location "
             "run with CUDA_LAUNCH_BLOCKING=1.";
  throw CudaError(code, message.str());
}

}  // namespace torch_cuda

#define TORCH_CUDA_CHECK(call)                                             \
  do {                                                                     \
    const cudaError_t torch_cuda_status_ = (call);                         \
    if (torch_cuda_status_ != cudaSuccess) {                               \
      ::torch_cuda::throw_cuda_error(torch_cuda_status_, #call, __FILE__,  \
                                     __LINE__);                            \
    }                                                                      \
  } while (false)
