// Turning a failed cuDNN call into an exception that says what failed and what to do, in
// the style of framework/cuda_check.h (TORCH_CUDA_CHECK).
#pragma once

#include <cudnn.h>

#include <sstream>
#include <stdexcept>
#include <string>

namespace torch_cuda::cudnn {

class CudnnError : public std::runtime_error {
 public:
  CudnnError(cudnnStatus_t status, const std::string& message) : std::runtime_error(message), status_(status) {}
  cudnnStatus_t status() const { return status_; }

 private:
  cudnnStatus_t status_;
};

[[noreturn]] inline void throw_cudnn_error(cudnnStatus_t status, const char* call, const char* file, int line) {
  std::ostringstream message;
  message << "cuDNN error: " << cudnnGetErrorString(status) << " from " << call << " at " << file << ":" << line;
  if (status == CUDNN_STATUS_NOT_INITIALIZED) {
    message << ". cuDNN could not initialise: is there a CUDA device, a working driver, and the "
               "nvidia-cudnn-cu13 wheel's libraries beside libcudnn.so.9?";
  } else if (status == CUDNN_STATUS_NOT_SUPPORTED) {
    message << ". cuDNN does not take this call; turning cuDNN off "
               "(torch.backends.cudnn.enabled = False) runs torch's own.";
  }
  throw CudnnError(status, message.str());
}

}  // namespace torch_cuda::cudnn

#define TORCH_CUDNN_CHECK(call)                                                            \
  do {                                                                                     \
    const cudnnStatus_t torch_cudnn_status_ = (call);                                      \
    if (torch_cudnn_status_ != CUDNN_STATUS_SUCCESS) {                                     \
      ::torch_cuda::cudnn::throw_cudnn_error(torch_cudnn_status_, #call, __FILE__, __LINE__); \
    }                                                                                      \
  } while (false)
