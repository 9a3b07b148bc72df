// torch.fft on the CUDA key, shared by both variants: _fft_r2c, _fft_c2r and _fft_c2c (and
// their out= overloads) as stock's SpectralOps.cpp for CUDA computes them. Each transform
// moves its batch dimensions first (in stride order) and collapses them into one, plans
// one cuFFT call of at most three dimensions (fft/fft_plan.h: the embedding of the strides,
// a contiguous copy where none exists), takes the executable plan from the device's plan
// cache (torch.backends.cuda.cufft_plan_cache) and runs it on the current stream with a
// work area from the caching allocator: cuFFT in the real variant, the same transform on
// the host in the simulated one. More than three dimensions are done three at a time;
// normalisation is a multiplication after the transform; a two-sided R2C fills its other
// half by conjugate symmetry (fft/conjugate_symmetry.cpp); C2R always transforms a copy,
// as cuFFT overwrites a C2R input. Half needs power-of-two sizes, as cuFFT; bfloat16, which
// torch.fft's frontend refuses but _fft_r2c itself takes, is transformed in float.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <utility>

#include <ATen/ScalarOps.h>
#include <ATen/core/Tensor.h>
#include <ATen/native/Resize.h>
#include <ATen/native/SpectralOpsUtils.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/mul.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/ScalarType.h>
#include <c10/util/irange.h>
#include <torch/library.h>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/fft/fft_plan.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/fft/fft_plan_cache.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_backend.h"

namespace torch_cuda::native {
namespace {

using at::native::fft_norm_mode;

fft::ValueType value_type(c10::ScalarType real_type) {
  switch (real_type) {
    case c10::kHalf:
      return fft::ValueType::kHalf;
    case c10::kFloat:
      return fft::ValueType::kFloat;
    case c10::kDouble:
      return fft::ValueType::kDouble;
    default:
      break;
  }
  TORCH_CHECK(false, "cuFFT doesn't support tensor of type: ", real_type);
}

fft::Transform transform_of(bool complex_input, bool complex_output) {
  TORCH_CHECK(complex_input || complex_output, "Real to real FFTs are not supported");
  if (!complex_input) return fft::Transform::kR2C;
  return complex_output ? fft::Transform::kC2C : fft::Transform::kC2R;
}

// A general transform (C2C, onesided R2C or onesided C2R) of `dim` (at most three) into
// `out`, which is resized; returns `out` restrided to `out_sizes` in self's layout.
const at::Tensor& exec_fft(at::Tensor& out, const at::Tensor& self, at::IntArrayRef out_sizes, at::IntArrayRef dim,
                           bool forward) {
  const int64_t ndim = self.dim();
  const auto signal_ndim = static_cast<int64_t>(dim.size());
  const int64_t batch_dims = ndim - signal_ndim;

  // Batch dimensions first, in stride order, so that they collapse into one.
  at::DimVector dim_permute(ndim);
  std::iota(dim_permute.begin(), dim_permute.end(), int64_t{0});
  c10::SmallVector<bool, at::kDimVectorStaticSize> is_transformed(ndim);
  for (const int64_t d : dim) is_transformed[d] = true;
  const auto batch_end =
      std::partition(dim_permute.begin(), dim_permute.end(), [&](int64_t d) { return !is_transformed[d]; });
  const auto self_strides = self.strides();
  std::sort(dim_permute.begin(), batch_end, [&](int64_t a, int64_t b) { return self_strides[a] > self_strides[b]; });
  std::copy(dim.begin(), dim.end(), batch_end);
  at::Tensor input = self.permute(dim_permute);

  at::DimVector batched_sizes(signal_ndim + 1);
  batched_sizes[0] = -1;
  std::copy(input.sizes().begin() + batch_dims, input.sizes().end(), batched_sizes.begin() + 1);
  input = input.reshape(batched_sizes);

  fft::FftKey key;
  key.rank = static_cast<int>(signal_ndim);
  key.sizes[0] = input.size(0);
  for (const auto i : c10::irange(signal_ndim)) {
    const int64_t in_size = input.size(i + 1), out_size = out_sizes[dim[i]];
    key.sizes[i + 1] = std::max(in_size, out_size);
    TORCH_INTERNAL_ASSERT(in_size == key.sizes[i + 1] || in_size == key.sizes[i + 1] / 2 + 1);
    TORCH_INTERNAL_ASSERT(out_size == key.sizes[i + 1] || out_size == key.sizes[i + 1] / 2 + 1);
  }
  batched_sizes[0] = key.sizes[0];
  at::DimVector batched_out_sizes(batched_sizes.begin(), batched_sizes.end());
  for (const auto i : c10::irange(signal_ndim)) batched_out_sizes[i + 1] = out_sizes[dim[i]];
  out.resize_(batched_out_sizes, c10::MemoryFormat::Contiguous);

  if (out.numel() > 0) {
    key.transform = transform_of(input.is_complex(), out.is_complex());
    key.value_type = value_type(c10::toRealValueType(input.scalar_type()));
    for (const auto i : c10::irange(signal_ndim + 1)) {
      key.in_strides[i] = input.stride(i);
      key.out_strides[i] = out.stride(i);
    }
    const fft::FftPlan plan = fft::plan_fft(key);
    const auto executable =
        fft::plan_cache(out.device().index()).lookup(key, [&] { return fft::make_executable(plan); });
    if (plan.clone_input) input = input.clone(c10::MemoryFormat::Contiguous);
    const at::Tensor workspace = at::empty({executable->workspace_size()}, out.options().dtype(at::kByte));
    executable->run(input.const_data_ptr(), out.data_ptr(), workspace.data_ptr(), forward,
                    backend().streams().current_handle(out.device().index()));
  }

  // Back to the batch shape, with the permutation undone.
  at::DimVector out_strides(ndim);
  int64_t batch_numel = 1;
  for (int64_t i = batch_dims - 1; i >= 0; --i) {
    out_strides[dim_permute[i]] = batch_numel * out.stride(0);
    batch_numel *= out_sizes[dim_permute[i]];
  }
  for (const auto i : c10::irange(batch_dims, ndim)) out_strides[dim_permute[i]] = out.stride(1 + (i - batch_dims));
  return out.as_strided_(out_sizes, out_strides, out.storage_offset());
}

// The normalisation's factor; `sizes` are the two-sided signal's.
double normalization_scale(int64_t normalization, at::IntArrayRef sizes, at::IntArrayRef dims) {
  const auto norm = static_cast<fft_norm_mode>(normalization);
  if (norm == fft_norm_mode::none) return 1.0;
  int64_t signal_numel = 1;
  for (const int64_t d : dims) signal_numel *= sizes[d];
  const double denominator = norm == fft_norm_mode::by_root_n ? std::sqrt(static_cast<double>(signal_numel))
                                                              : static_cast<double>(signal_numel);
  return 1.0 / denominator;
}

const at::Tensor& apply_normalization(const at::Tensor& self, int64_t normalization, at::IntArrayRef sizes,
                                      at::IntArrayRef dims) {
  const double scale = normalization_scale(normalization, sizes, dims);
  return scale == 1.0 ? self : self.mul_(scale);
}

at::Tensor& apply_normalization_out(at::Tensor& out, const at::Tensor& self, int64_t normalization,
                                    at::IntArrayRef sizes, at::IntArrayRef dims) {
  return at::mul_out(out, self, c10::scalar_to_tensor(normalization_scale(normalization, sizes, dims)));
}

// More than three dimensions, or a leading (0, 1): stock transforms the last dimension
// alone first, then the others three at a time.
bool one_plan(at::IntArrayRef dim) {
  return !(static_cast<int64_t>(dim.size()) > fft::kMaxRank || (dim.size() >= 2 && dim[0] == 0 && dim[1] == 1));
}

// The dimensions of `sorted_dims` with the smallest strides in `t`, at most three, taken
// off the end of `sorted_dims` (which is sorted by decreasing stride first).
at::DimVector take_innermost(at::DimVector& sorted_dims, const at::Tensor& t) {
  const auto strides = t.strides();
  std::sort(sorted_dims.begin(), sorted_dims.end(), [&](int64_t a, int64_t b) { return strides[a] > strides[b]; });
  const auto count = std::min<std::size_t>(fft::kMaxRank, sorted_dims.size());
  at::DimVector taken(sorted_dims.end() - static_cast<std::ptrdiff_t>(count), sorted_dims.end());
  sorted_dims.resize(sorted_dims.size() - count);
  return taken;
}

at::Tensor fft_c2c(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization, bool forward) {
  TORCH_CHECK(self.is_complex());
  if (dim.empty()) return self.clone();
  const c10::DeviceGuard guard(self.device());
  const auto out_sizes = self.sizes();
  at::Tensor output = at::empty(out_sizes, self.options());
  at::DimVector sorted_dims(dim.begin(), dim.end());
  at::Tensor working = self;
  while (true) {
    const at::DimVector dims = take_innermost(sorted_dims, working);
    exec_fft(output, working, out_sizes, dims, forward);
    if (sorted_dims.empty()) break;
    if (working.is_same(self)) {
      working = std::move(output);
      output = at::empty(out_sizes, self.options());
    } else {
      std::swap(output, working);
    }
  }
  return apply_normalization(output, normalization, out_sizes, dim);
}

at::Tensor fft_r2c(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization, bool onesided) {
  TORCH_CHECK(self.is_floating_point());
  if (self.scalar_type() == c10::kBFloat16) return fft_r2c(self.to(c10::kFloat), dim, normalization, onesided);
  const c10::DeviceGuard guard(self.device());
  const auto input_sizes = self.sizes();
  at::DimVector onesided_sizes(input_sizes.begin(), input_sizes.end());
  const int64_t last_dim = dim.back();
  const int64_t last_dim_halfsize = input_sizes[last_dim] / 2 + 1;
  onesided_sizes[last_dim] = last_dim_halfsize;
  const at::IntArrayRef out_sizes = onesided ? at::IntArrayRef(onesided_sizes) : input_sizes;
  const auto out_options = self.options().dtype(c10::toComplexType(self.scalar_type()));
  at::Tensor output = at::empty(out_sizes, out_options);

  // cuFFT reads a real input as if it were complex: it must be aligned as one.
  const auto complex_size = static_cast<std::uintptr_t>(2 * self.element_size());
  at::Tensor working = self;
  if (reinterpret_cast<std::uintptr_t>(self.const_data_ptr()) % complex_size != 0) {
    working = self.movedim(last_dim, -1).clone(c10::MemoryFormat::Contiguous).movedim(-1, last_dim);
  }

  if (one_plan(dim)) {
    exec_fft(output, working, out_sizes, dim, /*forward=*/true);
  } else {
    // The R2C of the last dimension, then C2C of the others (intermediates onesided).
    exec_fft(output, working, dim.size() == 1 ? out_sizes : at::IntArrayRef(onesided_sizes), last_dim, true);
    if (dim.size() > 1) working = at::empty(out_sizes, out_options);
    at::DimVector sorted_dims(dim.begin(), dim.end() - 1);
    while (!sorted_dims.empty()) {
      std::swap(output, working);
      const at::DimVector dims = take_innermost(sorted_dims, working);
      exec_fft(output, working, onesided_sizes, dims, /*forward=*/true);
    }
  }

  // The onesided part only: the other half is overwritten below.
  at::Tensor out_slice = output.slice(last_dim, 0, last_dim_halfsize);
  apply_normalization(out_slice, normalization, input_sizes, dim);
  if (!onesided) {
    if (output.size(last_dim) != out_sizes[last_dim]) {
      working.resize_(out_sizes, c10::MemoryFormat::Contiguous);
      working.slice(last_dim, 0, last_dim_halfsize).copy_(output);
      output = std::move(working);
    }
    at::native::_fft_fill_with_conjugate_symmetry_(output, dim);
  }
  return output;
}

at::Tensor fft_c2r(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization, int64_t last_dim_size) {
  TORCH_CHECK(self.is_complex());
  const c10::DeviceGuard guard(self.device());
  at::DimVector out_sizes(self.sizes().begin(), self.sizes().end());
  out_sizes[dim.back()] = last_dim_size;
  at::Tensor output = at::empty(out_sizes, self.options().dtype(c10::toRealValueType(self.scalar_type())));
  at::Tensor temp;
  if (one_plan(dim)) {
    temp = self.clone(c10::MemoryFormat::Contiguous);  // cuFFT overwrites a C2R input
    exec_fft(output, temp, out_sizes, dim, /*forward=*/false);
  } else {
    // The C2C transforms first, then a one-dimensional C2R.
    temp = dim.size() > 1
               ? fft_c2c(self, dim.slice(0, dim.size() - 1), static_cast<int64_t>(fft_norm_mode::none), false)
               : self.clone(c10::MemoryFormat::Contiguous);
    exec_fft(output, temp, out_sizes, dim.back(), /*forward=*/false);
  }
  return apply_normalization(output, normalization, out_sizes, dim);
}

at::Tensor& fft_r2c_out(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization, bool onesided,
                        at::Tensor& out) {
  const at::Tensor result = fft_r2c(self, dim, static_cast<int64_t>(fft_norm_mode::none), /*onesided=*/true);
  if (onesided) return apply_normalization_out(out, result, normalization, self.sizes(), dim);
  at::native::resize_output(out, self.sizes());
  at::Tensor out_slice = out.slice(dim.back(), 0, result.size(dim.back()));
  apply_normalization_out(out_slice, result, normalization, self.sizes(), dim);
  at::native::_fft_fill_with_conjugate_symmetry_(out, dim);
  return out;
}

at::Tensor& fft_c2r_out(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization, int64_t last_dim_size,
                        at::Tensor& out) {
  const at::Tensor result = fft_c2r(self, dim, static_cast<int64_t>(fft_norm_mode::none), last_dim_size);
  return apply_normalization_out(out, result, normalization, result.sizes(), dim);
}

at::Tensor& fft_c2c_out(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization, bool forward,
                        at::Tensor& out) {
  const at::Tensor result = fft_c2c(self, dim, static_cast<int64_t>(fft_norm_mode::none), forward);
  return apply_normalization_out(out, result, normalization, result.sizes(), dim);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, CUDA, m) {
  m.impl("_fft_r2c", TORCH_FN(fft_r2c));
  m.impl("_fft_r2c.out", TORCH_FN(fft_r2c_out));
  m.impl("_fft_c2r", TORCH_FN(fft_c2r));
  m.impl("_fft_c2r.out", TORCH_FN(fft_c2r_out));
  m.impl("_fft_c2c", TORCH_FN(fft_c2c));
  m.impl("_fft_c2c.out", TORCH_FN(fft_c2c_out));
}

}  // namespace torch_cuda::native
