#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_common.h"

#include <cuda_runtime_api.h>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_check.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_version.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_check.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/handle_pool.h"

namespace torch_cuda::cudnn {
namespace {

cudnnHandle_t create_handle() {
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

long runtime_version() { return static_cast<long>(cudnnGetVersion()); }  // NOLINT(runtime/int)

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
