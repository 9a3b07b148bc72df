// The factories on any torch_core backend: stock's CUDA kernels arange_cuda_out,
// linspace_cuda_out, logspace_cuda_out, tril_indices_cuda, triu_indices_cuda and
// eye_out_cuda. All but eye take their values from the CPU's own kernel (its size and bound checks are stock's) and
// copy them to the device: host-made factories, not fallbacks. eye is stock's: zeros
// with ones written along a strided diagonal view.
#include <algorithm>

#include <ATen/core/Tensor.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/arange_native.h>
#include <ATen/ops/eye_native.h>
#include <ATen/ops/linspace.h>
#include <ATen/ops/linspace_native.h>
#include <ATen/ops/logspace.h>
#include <ATen/ops/logspace_native.h>
#include <ATen/ops/tril_indices.h>
#include <ATen/ops/tril_indices_native.h>
#include <ATen/ops/triu_indices.h>
#include <ATen/ops/triu_indices_native.h>
#include <c10/util/Exception.h>

namespace at::native {

namespace {

// `out` resized as stock's CUDA range factories do (resize_, no warning) and filled from
// host-made `values`.
Tensor& copy_host_values(const Tensor& values, Tensor& out) {
  if (out.numel() != values.numel()) out.resize_({values.numel()});
  out.copy_(values);
  return out;
}

}  // namespace

Tensor& arange_cuda_out(const Scalar& start, const Scalar& end, const Scalar& step, Tensor& out) {
  const Tensor values = at::arange(start, end, step, out.options().device(kCPU));
  at::native::resize_output(out, values.sizes());
  out.copy_(values);
  return out;
}

Tensor& linspace_cuda_out(const Scalar& start, const Scalar& end, int64_t steps, Tensor& out) {
  TORCH_CHECK(steps >= 0, "number of steps must be non-negative");
  return copy_host_values(at::linspace(start, end, steps, out.options().device(kCPU)), out);
}

Tensor& logspace_cuda_out(const Scalar& start, const Scalar& end, int64_t steps, double base, Tensor& out) {
  TORCH_CHECK(steps >= 0, "number of steps must be non-negative");
  return copy_host_values(at::logspace(start, end, steps, base, out.options().device(kCPU)), out);
}

Tensor& eye_out_cuda(int64_t n, int64_t m, Tensor& out) {
  TORCH_CHECK(n >= 0, "n must be greater or equal to 0, got ", n);
  TORCH_CHECK(m >= 0, "m must be greater or equal to 0, got ", m);
  out.resize_({n, m});
  out.zero_();
  const int64_t diagonal_length = std::min(n, m);
  out.as_strided({diagonal_length}, {out.stride(0) + out.stride(1)}).fill_(1);
  return out;
}

Tensor& eye_out_cuda(int64_t n, Tensor& out) { return eye_out_cuda(n, n, out); }

Tensor tril_indices_cuda(int64_t row, int64_t col, int64_t offset, std::optional<ScalarType> dtype,
                         std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  const TensorOptions options = TensorOptions().dtype(dtype).layout(layout).device(device).pinned_memory(pin_memory);
  return at::tril_indices(row, col, offset, options.device(kCPU)).to(options.device());
}

Tensor triu_indices_cuda(int64_t row, int64_t col, int64_t offset, std::optional<ScalarType> dtype,
                         std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  const TensorOptions options = TensorOptions().dtype(dtype).layout(layout).device(device).pinned_memory(pin_memory);
  return at::triu_indices(row, col, offset, options.device(kCPU)).to(options.device());
}

}  // namespace at::native
