// What the real variant's cuDNN executors share: the per-thread cuDNN handles of each
// device, the plans' data and math types in cuDNN's enums, tensor descriptors, owned
// descriptors of any kind, and alpha = 1 / beta = 0 as cuDNN reads them.
#pragma once

#include <cudnn.h>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_check.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_tensors.h"

namespace torch_cuda::cudnn {

// The calling thread's cuDNN handle for `device` (framework/handle_pool.h), made on first
// use; the caller binds it to its stream.
cudnnHandle_t cudnn_handle(int device);

cudnnDataType_t cudnn_data_type(DataType type);
cudnnMathType_t cudnn_math_type(MathType type);

// The device the calling thread's CUDA calls go to, where an executable is made.
int current_device();

// A tensor descriptor of `dims` sizes and strides, destroyed with this; it stands in for
// the raw descriptor in cuDNN's calls.
class TensorDescriptor {
 public:
  TensorDescriptor(DataType type, int dims, const int* sizes, const int* strides);
  ~TensorDescriptor();
  TensorDescriptor(const TensorDescriptor&) = delete;
  TensorDescriptor& operator=(const TensorDescriptor&) = delete;

  operator cudnnTensorDescriptor_t() const { return desc_; }  // NOLINT(google-explicit-constructor)

 private:
  cudnnTensorDescriptor_t desc_ = nullptr;
};

// Owns one descriptor of cuDNN's create/destroy pairs.
template <typename Desc, cudnnStatus_t (*Create)(Desc*), cudnnStatus_t (*Destroy)(Desc)>
class Owned {
 public:
  Owned() { TORCH_CUDNN_CHECK(Create(&desc_)); }
  ~Owned() { Destroy(desc_); }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  Desc get() const { return desc_; }

 private:
  Desc desc_ = nullptr;
};

// alpha = 1 and beta = 0 in the host type cuDNN reads for `compute_type` (double for
// double, float otherwise).
struct Scaling {
  explicit Scaling(DataType compute_type) : in_double(compute_type == DataType::kDouble) {}
  const void* one() const { return in_double ? static_cast<const void*>(&one_double) : &one_float; }
  const void* zero() const { return in_double ? static_cast<const void*>(&zero_double) : &zero_float; }

  bool in_double;
  float one_float = 1.0f, zero_float = 0.0f;
  double one_double = 1.0, zero_double = 0.0;
};

}  // namespace torch_cuda::cudnn
