#include "torch_core/csrc/aten/composite/resampling.h"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <utility>

#include <ATen/Dispatch.h>
#include <ATen/native/UpSample.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/index_select.h>
#include <ATen/ops/matmul.h>
#include <ATen/ops/zeros.h>

namespace torch_core::composite {

namespace {

// The element type of a 2-d accessor.
template <typename Accessor>
using element_t = std::remove_reference_t<decltype(std::declval<Accessor>()[0][0])>;

// A CPU (output x input) matrix of `accumulate`, filled by fill(accessor) with acc_t the
// C++ type of `accumulate`.
template <typename Fill>
at::Tensor host_matrix(Axis axis, at::ScalarType accumulate, const Fill& fill) {
  at::Tensor m = at::zeros({axis.output_size, axis.input_size}, at::TensorOptions().dtype(accumulate));
  AT_DISPATCH_FLOATING_TYPES(accumulate, "resampling_weights", [&] { fill(m.accessor<scalar_t, 2>()); });
  return m;
}

// The weights moved to `like`'s device in the product's type.
at::Tensor on_device(const at::Tensor& weights, const at::Tensor& like) {
  return weights.to(like.device(), accumulate_type(like.scalar_type()));
}

at::Tensor apply(at::Tensor x, const std::vector<at::Tensor>& weights, bool transpose) {
  const int64_t first = x.dim() - static_cast<int64_t>(weights.size());
  for (std::size_t i = 0; i < weights.size(); ++i) {
    const at::Tensor w = on_device(weights[i], x);
    const int64_t dim = first + static_cast<int64_t>(i);
    // (..., in) @ (in, out) along dim; the backward multiplies by the matrix itself.
    x = at::matmul(x.movedim(dim, -1), transpose ? w : w.t()).movedim(-1, dim);
  }
  return x;
}

}  // namespace

void check_floating(at::ScalarType dtype, const char* kernel_name, bool allow_byte) {
  const bool supported = dtype == at::kFloat || dtype == at::kDouble || dtype == at::kHalf ||
                         dtype == at::kBFloat16 || (allow_byte && dtype == at::kByte);
  check_dtype_supported(supported, dtype, kernel_name);
}

void check_dtype_supported(bool supported, at::ScalarType dtype, const char* kernel_name) {
  TORCH_CHECK_NOT_IMPLEMENTED(supported, "\"", kernel_name, "\" not implemented for '", c10::toString(dtype), "'");
}

at::ScalarType accumulate_type(at::ScalarType dtype) { return dtype == at::kDouble ? at::kDouble : at::kFloat; }

at::Tensor nearest_indices(Axis axis, std::optional<double> scale, bool exact) {
  at::Tensor indices = at::empty({axis.output_size}, at::TensorOptions().dtype(at::kLong));
  int64_t* index = indices.mutable_data_ptr<int64_t>();
  const float s = at::native::compute_scales_value<float>(scale, axis.input_size, axis.output_size);
  for (int64_t o = 0; o < axis.output_size; ++o) {
    index[o] = exact ? at::native::nearest_neighbor_exact_compute_source_index(s, o, axis.input_size)
                     : at::native::nearest_neighbor_compute_source_index(s, o, axis.input_size);
  }
  return indices;
}

at::Tensor gather_weights(const at::Tensor& indices, int64_t input_size, at::ScalarType accumulate) {
  const int64_t* index = indices.const_data_ptr<int64_t>();
  return host_matrix({input_size, indices.size(0)}, accumulate, [&](auto m) {
    for (int64_t o = 0; o < indices.size(0); ++o) m[o][index[o]] = 1;
  });
}

at::Tensor nearest_weights(Axis axis, std::optional<double> scale, bool exact, at::ScalarType accumulate) {
  return gather_weights(nearest_indices(axis, scale, exact), axis.input_size, accumulate);
}

at::Tensor padding_indices(int64_t input_size, int64_t before, int64_t after, bool reflect) {
  const int64_t output_size = input_size + before + after;
  at::Tensor indices = at::empty({output_size}, at::TensorOptions().dtype(at::kLong));
  int64_t* index = indices.mutable_data_ptr<int64_t>();
  for (int64_t o = 0; o < output_size; ++o) {
    int64_t i = o - before;
    if (reflect) {
      if (i < 0) i = -i;
      if (i >= input_size) i = 2 * (input_size - 1) - i;
    } else {
      i = std::clamp<int64_t>(i, 0, input_size - 1);
    }
    index[o] = i;
  }
  return indices;
}

at::Tensor linear_weights(Axis axis, bool align_corners, std::optional<double> scale, at::ScalarType accumulate) {
  return host_matrix(axis, accumulate, [&](auto m) {
    using acc_t = element_t<decltype(m)>;
    const acc_t s =
        at::native::area_pixel_compute_scale<acc_t>(axis.input_size, axis.output_size, align_corners, scale);
    for (int64_t o = 0; o < axis.output_size; ++o) {
      // stock's CUDA kernels: the left neighbour, the right one unless at the edge.
      const acc_t real = at::native::area_pixel_compute_source_index<acc_t>(s, o, align_corners, /*cubic=*/false);
      const int64_t left = static_cast<int64_t>(real);
      const int64_t step = left < axis.input_size - 1 ? 1 : 0;
      const acc_t right_weight = real - static_cast<acc_t>(left);
      m[o][left] += acc_t(1) - right_weight;
      m[o][left + step] += right_weight;
    }
  });
}

at::Tensor cubic_weights(Axis axis, bool align_corners, std::optional<double> scale, at::ScalarType accumulate) {
  return host_matrix(axis, accumulate, [&](auto m) {
    using acc_t = element_t<decltype(m)>;
    const acc_t s =
        at::native::area_pixel_compute_scale<acc_t>(axis.input_size, axis.output_size, align_corners, scale);
    for (int64_t o = 0; o < axis.output_size; ++o) {
      const acc_t real = at::native::area_pixel_compute_source_index<acc_t>(s, o, align_corners, /*cubic=*/true);
      const int64_t base = static_cast<int64_t>(std::floor(real));
      acc_t coefficients[4];
      at::native::get_cubic_upsample_coefficients<acc_t>(coefficients, real - static_cast<acc_t>(base));
      // Taps base-1 .. base+2, clamped to the edge.
      for (int64_t tap = 0; tap < 4; ++tap) {
        const int64_t i = std::clamp<int64_t>(base - 1 + tap, 0, axis.input_size - 1);
        m[o][i] += coefficients[tap];
      }
    }
  });
}

at::Tensor average_weights(Axis axis, int64_t kernel, int64_t stride, int64_t padding, bool count_include_pad,
                           bool divide, at::ScalarType accumulate) {
  return host_matrix(axis, accumulate, [&](auto m) {
    using acc_t = element_t<decltype(m)>;
    for (int64_t o = 0; o < axis.output_size; ++o) {
      // stock's CUDA avg_pool: the window clipped to the padded input counts with
      // count_include_pad, the part inside the input otherwise.
      const int64_t start = o * stride - padding;
      const int64_t padded_end = std::min(start + kernel, axis.input_size + padding);
      const int64_t first = std::max<int64_t>(start, 0);
      const int64_t end = std::min(padded_end, axis.input_size);
      if (first >= end) continue;
      const int64_t count = count_include_pad ? padded_end - start : end - first;
      const acc_t weight = divide ? acc_t(1) / static_cast<acc_t>(count) : acc_t(1);
      for (int64_t i = first; i < end; ++i) m[o][i] = weight;
    }
  });
}

at::Tensor adaptive_average_weights(Axis axis, at::ScalarType accumulate) {
  return host_matrix(axis, accumulate, [&](auto m) {
    using acc_t = element_t<decltype(m)>;
    for (int64_t o = 0; o < axis.output_size; ++o) {
      const int64_t start = o * axis.input_size / axis.output_size;
      const int64_t end = ((o + 1) * axis.input_size + axis.output_size - 1) / axis.output_size;
      for (int64_t i = start; i < end; ++i) m[o][i] = acc_t(1) / static_cast<acc_t>(end - start);
    }
  });
}

void resample_into(const at::Tensor& out, const at::Tensor& x, const std::vector<at::Tensor>& weights) {
  if (out.numel() == 0) return;
  out.copy_(apply(x.to(accumulate_type(x.scalar_type())), weights, /*transpose=*/false));
}

void select_into(const at::Tensor& out, const at::Tensor& x, const std::vector<at::Tensor>& indices) {
  if (out.numel() == 0) return;
  at::Tensor selected = x;
  const int64_t first = x.dim() - static_cast<int64_t>(indices.size());
  for (std::size_t i = 0; i < indices.size(); ++i) {
    selected = selected.index_select(first + static_cast<int64_t>(i), indices[i].to(x.device()));
  }
  out.copy_(selected);
}

void resample_backward_into(const at::Tensor& grad_input, const at::Tensor& grad_output,
                            const std::vector<at::Tensor>& weights) {
  if (grad_input.numel() == 0) return;
  if (grad_output.numel() == 0) {
    grad_input.zero_();
    return;
  }
  grad_input.copy_(apply(grad_output.to(accumulate_type(grad_output.scalar_type())), weights, /*transpose=*/true));
}

}  // namespace torch_core::composite
