// The CUDA slot of stock's fft_fill_with_conjugate_symmetry_stub, which
// at::native::_fft_fill_with_conjugate_symmetry_ calls to complete a two-sided R2C result
// from its onesided half: out[mirror(i)] = conj(in[i]) over `half_sizes`, where mirror
// takes index i of each of `mirror_dims` to (size - i) % size, and a negative out stride
// walks its dimension backwards from out_data (the last signal dimension: X[n - k] =
// conj(X[k])). Strides are in bytes (TensorIterator's). In and out are views of one device
// tensor that do not overlap; they are wrapped as tensors on the current device and
// copied with device operators.
#include <cstdint>

#include <ATen/core/Tensor.h>
#include <ATen/native/SpectralOpsUtils.h>
#include <ATen/ops/from_blob.h>
#include <c10/core/DeviceType.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <c10/util/irange.h>

#include "torch_core/csrc/aten/engine/stub_slot.h"

namespace torch_cuda::fft {
namespace {

void fill_with_conjugate_symmetry(c10::ScalarType dtype, at::IntArrayRef mirror_dims, at::IntArrayRef half_sizes,
                                  at::IntArrayRef in_strides, const void* in_data, at::IntArrayRef out_strides,
                                  void* out_data) {
  for (const int64_t size : half_sizes) {
    if (size == 0) return;
  }
  const c10::Device device = c10::impl::getDeviceGuardImpl(c10::DeviceType::CUDA)->getDevice();
  const auto options = at::TensorOptions().dtype(dtype).device(device);
  const auto element_size = static_cast<int64_t>(c10::elementSize(dtype));
  const auto in_elements = [&](at::IntArrayRef bytes) {
    at::DimVector elements(bytes.begin(), bytes.end());
    for (int64_t& stride : elements) stride /= element_size;
    return elements;
  };
  at::Tensor source = at::from_blob(const_cast<void*>(in_data), half_sizes, in_elements(in_strides), options);
  for (const int64_t d : mirror_dims) source = source.flip(d).roll(1, d);  // i -> (size - i) % size

  // Tensors have no negative strides: the out view starts at its lowest address, and the
  // source runs backwards along those dimensions instead.
  at::DimVector strides = in_elements(out_strides);
  auto* lowest = static_cast<char*>(out_data);
  for (const auto d : c10::irange(strides.size())) {
    if (strides[d] >= 0) continue;
    lowest += strides[d] * (half_sizes[d] - 1) * element_size;
    strides[d] = -strides[d];
    source = source.flip(static_cast<int64_t>(d));
  }
  at::from_blob(lowest, half_sizes, strides, options).copy_(source.conj());
}

// Filled as the library loads: the stub lives in libtorch_cpu, loaded before _CUDAC.
[[maybe_unused]] const bool kFilled = [] {
  torch_core::engine::set_slot(at::native::fft_fill_with_conjugate_symmetry_stub, c10::DeviceType::CUDA,
                               &fill_with_conjugate_symmetry);
  return true;
}();

}  // namespace
}  // namespace torch_cuda::fft
