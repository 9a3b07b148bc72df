#include "third_device/torch_cuda/torch_cuda/csrc/aten/linalg/cusolver_handle.h"

#include <sstream>
#include <stdexcept>

#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_check.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/handle_pool.h"

namespace torch_cuda::solver {
namespace {

const char* status_name(cusolverStatus_t status) {
  switch (status) {
    case CUSOLVER_STATUS_SUCCESS: return "CUSOLVER_STATUS_SUCCESS";
    case CUSOLVER_STATUS_NOT_INITIALIZED: return "CUSOLVER_STATUS_NOT_INITIALIZED";
    case CUSOLVER_STATUS_ALLOC_FAILED: return "CUSOLVER_STATUS_ALLOC_FAILED";
    case CUSOLVER_STATUS_INVALID_VALUE: return "CUSOLVER_STATUS_INVALID_VALUE";
    case CUSOLVER_STATUS_ARCH_MISMATCH: return "CUSOLVER_STATUS_ARCH_MISMATCH";
    case CUSOLVER_STATUS_EXECUTION_FAILED: return "CUSOLVER_STATUS_EXECUTION_FAILED";
    case CUSOLVER_STATUS_INTERNAL_ERROR: return "CUSOLVER_STATUS_INTERNAL_ERROR";
    case CUSOLVER_STATUS_NOT_SUPPORTED: return "CUSOLVER_STATUS_NOT_SUPPORTED";
    default: return "an unknown cusolverStatus_t";
  }
}

cusolverDnHandle_t create_handle() {
  cusolverDnHandle_t handle = nullptr;
  check_cusolver(cusolverDnCreate(&handle), "cusolverDnCreate");
  return handle;
}

}  // namespace

void check_cusolver(cusolverStatus_t status, const char* call) {
  if (status == CUSOLVER_STATUS_SUCCESS) return;
  std::ostringstream message;
  message << "cuSOLVER error: " << status_name(status) << " (" << static_cast<int>(status) << ") from " << call;
  if (status == CUSOLVER_STATUS_NOT_INITIALIZED) {
    message << ": cuSOLVER could not initialise; is there a CUDA device and a working driver?";
  } else if (status == CUSOLVER_STATUS_ALLOC_FAILED) {
    message << ": the device is out of memory";
  } else if (status == CUSOLVER_STATUS_EXECUTION_FAILED) {
    message << ": a kernel failed; the error may come from earlier work on the stream (run with "
               "CUDA_LAUNCH_BLOCKING=1 to find it)";
  }
  throw std::runtime_error(message.str());
}

cusolverDnHandle_t current_handle(cudaStream_t stream) {
  int device = 0;
  TORCH_CUDA_CHECK(cudaGetDevice(&device));
  cusolverDnHandle_t handle = HandlePool<cusolverDnHandle_t>::get(&create_handle).lease(device);
  check_cusolver(cusolverDnSetStream(handle, stream), "cusolverDnSetStream");
  return handle;
}

}  // namespace torch_cuda::solver
