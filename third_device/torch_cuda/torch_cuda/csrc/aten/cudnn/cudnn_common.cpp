#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_common.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <atomic>
#include <stdexcept>
#include <string>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_check.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_version.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_check.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/handle_pool.h"

namespace torch_cuda::cudnn {
namespace {

// cuDNN 9's libcudnn.so.9 forwards each call to its sub-libraries and aborts the process
// when one cannot be loaded ("Invalid handle. Cannot load symbol ..."). Before the first call
// the graph library (cudnnGetVersion's, cudnnCreate's) is looked for as the loader would find
// it (already loaded, beside libcudnn.so.9, on the search path), so a missing one is an error
// that says what to install, not an abort. Found once, it is not looked for again.
void require_sub_libraries() {
  static std::atomic<bool> found{false};
  if (found) return;
  constexpr const char* kGraph = "libcudnn_graph.so.9";
  std::string beside = kGraph;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&cudnnGetVersion), &info) != 0 && info.dli_fname != nullptr) {
    const std::string shim(info.dli_fname);
    beside = shim.substr(0, shim.rfind('/') + 1) + kGraph;
  }
  if (dlopen(kGraph, RTLD_LAZY | RTLD_NOLOAD) != nullptr || dlopen(beside.c_str(), RTLD_LAZY) != nullptr ||
      dlopen(kGraph, RTLD_LAZY) != nullptr) {
    found = true;
    return;
  }
  const char* error = dlerror();
  throw std::runtime_error(std::string("cuDNN cannot load ") + beside + " (" + (error ? error : "not found") +
                           "): libcudnn.so.9 needs its sub-libraries beside it; install the nvidia-cudnn-cu13 "
                           "wheel whole (pip install nvidia-cudnn-cu13)");
}

cudnnHandle_t create_handle() {
  require_sub_libraries();
  cudnnHandle_t handle = nullptr;
  TORCH_CUDNN_CHECK(cudnnCreate(&handle));
  return handle;
}

}  // namespace

cudnnHandle_t cudnn_handle(int device) { return HandlePool<cudnnHandle_t>::get(&create_handle).lease(device); }

cudnnDataType_t cudnn_data_type(DataType type) {
  switch (type) {
    case DataType::kHalf:
      return CUDNN_DATA_HALF;
    case DataType::kBFloat16:
      return CUDNN_DATA_BFLOAT16;
    case DataType::kFloat:
      return CUDNN_DATA_FLOAT;
    case DataType::kDouble:
      return CUDNN_DATA_DOUBLE;
  }
  return CUDNN_DATA_FLOAT;
}

long compile_version() { return CUDNN_VERSION; }  // NOLINT(runtime/int)

long runtime_version() {  // NOLINT(runtime/int)
  require_sub_libraries();
  return static_cast<long>(cudnnGetVersion());  // NOLINT(runtime/int)
}

cudnnMathType_t cudnn_math_type(MathType type) {
  switch (type) {
    case MathType::kDefault:
      return CUDNN_DEFAULT_MATH;
    case MathType::kTensorOp:
      return CUDNN_TENSOR_OP_MATH;
    case MathType::kFma:
      return CUDNN_FMA_MATH;
  }
  return CUDNN_DEFAULT_MATH;
}

int current_device() {
  int device = 0;
  TORCH_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

TensorDescriptor::TensorDescriptor(DataType type, int dims, const int* sizes, const int* strides) {
  TORCH_CUDNN_CHECK(cudnnCreateTensorDescriptor(&desc_));
  const cudnnStatus_t status = cudnnSetTensorNdDescriptor(desc_, cudnn_data_type(type), dims, sizes, strides);
  if (status != CUDNN_STATUS_SUCCESS) {
    cudnnDestroyTensorDescriptor(desc_);
    throw_cudnn_error(status, "cudnnSetTensorNdDescriptor", __FILE__, __LINE__);
  }
}

TensorDescriptor::~TensorDescriptor() { cudnnDestroyTensorDescriptor(desc_); }

}  // namespace torch_cuda::cudnn
