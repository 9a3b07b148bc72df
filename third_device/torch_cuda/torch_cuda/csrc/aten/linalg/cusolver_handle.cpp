#include "third_device/torch_cuda/torch_cuda/csrc/aten/linalg/cusolver_handle.h"

#include <mutex>
#include <sstream>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_check.h"

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

// Handles by device, idle ones in the pool and the calling thread's own in its lease.
struct Pool {
  std::mutex mutex;
  std::unordered_map<int, std::vector<cusolverDnHandle_t>> idle;
};

Pool& pool() {
  static Pool* const instance = new Pool;  // leaked on purpose (see the header)
  return *instance;
}

struct Lease {
  std::unordered_map<int, cusolverDnHandle_t> handles;
  ~Lease() {
    Pool& p = pool();
    const std::lock_guard<std::mutex> lock(p.mutex);
    for (const auto& [device, handle] : handles) p.idle[device].push_back(handle);
  }
};

cusolverDnHandle_t lease_handle(int device) {
  thread_local Lease lease;
  const auto found = lease.handles.find(device);
  if (found != lease.handles.end()) return found->second;
  cusolverDnHandle_t handle = nullptr;
  {
    Pool& p = pool();
    const std::lock_guard<std::mutex> lock(p.mutex);
    auto& idle = p.idle[device];
    if (!idle.empty()) {
      handle = idle.back();
      idle.pop_back();
    }
  }
  if (handle == nullptr) check_cusolver(cusolverDnCreate(&handle), "cusolverDnCreate");
  lease.handles.emplace(device, handle);
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
  cusolverDnHandle_t handle = lease_handle(device);
  check_cusolver(cusolverDnSetStream(handle, stream), "cusolverDnSetStream");
  return handle;
}

}  // namespace torch_cuda::solver
