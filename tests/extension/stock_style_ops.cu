// An extension written for stock CUDA torch, unchanged: stock's own c10/cuda and ATen/cuda
// headers (from the CPU wheel, plus torch_cuda's cuda_cmake_macros.h), a raw kernel launch
// on at::cuda::getCurrentCUDAStream() under an OptionalCUDAGuard, C10_CUDA_KERNEL_LAUNCH_CHECK,
// the cuBLAS handle. Against torch_cuda its c10::cuda and at::cuda calls resolve in the
// real variant's _CUDAC (//tests/extension:test_real_extension).
#include <ATen/cuda/CUDAContext.h>
#include <ATen/ops/empty_like.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>

namespace {

__global__ void scale_kernel(const float* in, float* out, float factor, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * factor;
}

at::Tensor scale(const at::Tensor& x, double factor) {
  TORCH_CHECK(x.is_cuda() && x.scalar_type() == at::kFloat && x.is_contiguous(),
              "scale: a contiguous float32 CUDA tensor");
  const c10::cuda::OptionalCUDAGuard guard(x.device());
  at::Tensor out = at::empty_like(x);
  const int64_t n = x.numel();
  if (n == 0) return out;
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  scale_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(
      x.data_ptr<float>(), out.data_ptr<float>(), static_cast<float>(factor), n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}

int64_t cuda_device_count() { return c10::cuda::device_count(); }

// The cuBLAS handle of the current device and stream is the one torch's matmuls use.
bool has_blas_handle() { return at::cuda::getCurrentCUDABlasHandle() != nullptr; }

}  // namespace

TORCH_LIBRARY(stock_style, m) {
  m.def("scale(Tensor x, float factor) -> Tensor");
  m.def("cuda_device_count() -> int", &cuda_device_count);
  m.def("has_blas_handle() -> bool", &has_blas_handle);
}

TORCH_LIBRARY_IMPL(stock_style, CUDA, m) { m.impl("scale", &scale); }
