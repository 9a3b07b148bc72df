// add, sub, mul, div on the GPU: cuda_loop.cuh over loop_ops.h's functors.
#include "third_device/torch_cuda/csrc/aten/cuda_loop.cuh"
#include "third_device/torch_cuda/csrc/aten/loop_kernels.h"
#include "third_device/torch_cuda/csrc/aten/loop_ops.h"

namespace torch_cuda::kernels {

template <typename T>
void add(const StridedLoop<3>& loop, T alpha, cudaStream_t stream) {
  loop::elementwise<T, T, T>(loop, ops::Add<T>{alpha}, stream);
}

template <typename T>
void sub(const StridedLoop<3>& loop, T alpha, cudaStream_t stream) {
  loop::elementwise<T, T, T>(loop, ops::Sub<T>{alpha}, stream);
}

template <typename T>
void mul(const StridedLoop<3>& loop, cudaStream_t stream) {
  loop::elementwise<T, T, T>(loop, ops::Mul<T>{}, stream);
}

template <typename T>
void div(const StridedLoop<3>& loop, cudaStream_t stream) {
  loop::elementwise<T, T, T>(loop, ops::Div<T>{}, stream);
}

#define TORCH_CUDA_INSTANTIATE_ARITH(T)                                    \
  template void add<T>(const StridedLoop<3>&, T, cudaStream_t);           \
  template void sub<T>(const StridedLoop<3>&, T, cudaStream_t);           \
  template void mul<T>(const StridedLoop<3>&, cudaStream_t);

TORCH_CUDA_INSTANTIATE_ARITH(float)
TORCH_CUDA_INSTANTIATE_ARITH(double)
TORCH_CUDA_INSTANTIATE_ARITH(std::int32_t)
TORCH_CUDA_INSTANTIATE_ARITH(std::int64_t)
template void div<float>(const StridedLoop<3>&, cudaStream_t);
template void div<double>(const StridedLoop<3>&, cudaStream_t);

#undef TORCH_CUDA_INSTANTIATE_ARITH

}  // namespace torch_cuda::kernels
