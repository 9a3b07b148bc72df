#include "torch_core/csrc/aten/composite/conv_lowering.h"

#include <algorithm>
#include <functional>
#include <string>

#include <ATen/ops/bmm.h>
#include <ATen/ops/constant_pad_nd.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/sum.h>
#include <ATen/ops/zeros.h>
#include <ATen/ops/zeros_like.h>
#include <c10/util/Exception.h>
#include <c10/util/accumulate.h>

namespace torch_core::composite {

namespace {

// Both directions relate a "wide" tensor, whose windows the kernel slides over (a
// convolution's input, a transposed convolution's output), to a "narrow" one holding a
// value per window position (the convolution's output, the transposed one's input). The
// weight is [narrow channels, wide channels / groups, *K] in both.

// Column buffers above this many elements (64 MiB of float) are made a batch slice at a
// time, as stock's slow kernels make them a sample at a time.
constexpr int64_t kMaxColumnElements = int64_t{1} << 24;

size_t spatial_dims(const ConvGeometry& g) { return g.kernel_size.size(); }

std::vector<int64_t> spatial_sizes(const at::Tensor& t) { return t.sizes().slice(2).vec(); }

// Sizes as stock's slow kernels print them: "3 x 4".
std::string joined(at::IntArrayRef sizes) {
  std::string text;
  for (size_t d = 0; d < sizes.size(); ++d) text += (d == 0 ? "" : " x ") + std::to_string(sizes[d]);
  return text;
}

// Stock's shape check of the slow kernels: every output size positive.
void check_output_sizes(at::IntArrayRef input_spatial, at::IntArrayRef output_spatial) {
  const bool positive = std::all_of(output_spatial.begin(), output_spatial.end(), [](int64_t s) { return s > 0; });
  TORCH_CHECK(positive, "Given input size per channel: (", joined(input_spatial),
              "). Calculated output size per channel: (", joined(output_spatial), "). Output size is too small");
}

// The window positions along each spatial dimension of a wide tensor.
std::vector<int64_t> window_positions(at::IntArrayRef wide_spatial, const ConvGeometry& g) {
  std::vector<int64_t> positions;
  for (size_t d = 0; d < spatial_dims(g); ++d) {
    const int64_t span = g.dilation[d] * (g.kernel_size[d] - 1) + 1;
    positions.push_back((wide_spatial[d] + 2 * g.padding[d] - span) / g.stride[d] + 1);
  }
  check_output_sizes(wide_spatial, positions);
  return positions;
}

bool padded(const ConvGeometry& g) {
  return std::any_of(g.padding.begin(), g.padding.end(), [](int64_t p) { return p != 0; });
}

// The window view's sizes: [C, *K, N, *Q].
std::vector<int64_t> window_sizes(int64_t batch, int64_t channels, at::IntArrayRef positions, const ConvGeometry& g) {
  std::vector<int64_t> sizes{channels};
  sizes.insert(sizes.end(), g.kernel_size.begin(), g.kernel_size.end());
  sizes.push_back(batch);
  sizes.insert(sizes.end(), positions.begin(), positions.end());
  return sizes;
}

// wide [N, C, *W] -> columns [groups, C / groups * prod(K), N * prod(Q)]: the window view
// copied into matrix order.
at::Tensor unfold_columns(const at::Tensor& wide, at::IntArrayRef positions, const ConvGeometry& g) {
  return window_view(wide, positions, g)
      .reshape({g.groups, wide.size(1) / g.groups * c10::multiply_integers(g.kernel_size),
                wide.size(0) * c10::multiply_integers(positions)});
}

// columns [groups, C / groups * prod(K), N * prod(Q)] summed into wide [N, C, *W].
at::Tensor fold_columns(const at::Tensor& columns, at::IntArrayRef wide_sizes, at::IntArrayRef positions,
                        const ConvGeometry& g) {
  return sum_windows(columns.reshape(window_sizes(wide_sizes[0], wide_sizes[1], positions, g)), wide_sizes, g);
}

// narrow [N, C, *Q] -> [groups, C / groups, N * prod(Q)].
at::Tensor narrow_matrix(const at::Tensor& narrow, int64_t groups) {
  const int64_t n = narrow.size(0), channels = narrow.size(1) / groups;
  const int64_t positions = c10::multiply_integers(narrow.sizes().slice(2));
  return narrow.reshape({n, groups, channels, positions})
      .permute({1, 2, 0, 3})
      .reshape({groups, channels, n * positions});
}

// [groups, C / groups, N * prod(Q)] as narrow [N, C, *Q] (a view, not contiguous).
at::Tensor narrow_from_matrix(const at::Tensor& matrix, int64_t n, at::IntArrayRef positions) {
  std::vector<int64_t> sizes{matrix.size(0) * matrix.size(1), n};
  sizes.insert(sizes.end(), positions.begin(), positions.end());
  return matrix.reshape(sizes).transpose(0, 1);
}

// weight [narrow C, wide C / groups, *K] -> [groups, narrow C / groups, wide C / groups * prod(K)].
at::Tensor weight_matrix(const at::Tensor& weight, int64_t groups) {
  return weight.reshape({groups, weight.size(0) / groups, c10::multiply_integers(weight.sizes().slice(1))});
}

// Calls slice(start, length) over the batch in slices whose column buffers stay small.
void for_batch_slices(int64_t batch, int64_t wide_channels, at::IntArrayRef positions, const ConvGeometry& g,
                      const std::function<void(int64_t, int64_t)>& slice) {
  const int64_t per_sample =
      std::max<int64_t>(1, wide_channels * c10::multiply_integers(g.kernel_size) * c10::multiply_integers(positions));
  const int64_t step = std::max<int64_t>(1, kMaxColumnElements / per_sample);
  for (int64_t start = 0; start < batch; start += step) slice(start, std::min(step, batch - start));
}

void add_bias(at::Tensor& output, const std::optional<at::Tensor>& bias) {
  if (!bias || !bias->defined()) return;
  std::vector<int64_t> shape(output.dim(), 1);
  shape[1] = output.size(1);
  output.add_(bias->reshape(shape));
}

at::Tensor bias_gradient(const at::Tensor& grad_output) {
  std::vector<int64_t> dims{0};
  for (int64_t d = 2; d < grad_output.dim(); ++d) dims.push_back(d);
  return grad_output.sum(dims);
}

// The sum over batch slices of weight-gradient parts (an empty batch has none: the callers
// make zeros).
void accumulate(at::Tensor& total, const at::Tensor& part) {
  if (total.defined()) {
    total.add_(part);
  } else {
    total = part;
  }
}

std::vector<int64_t> with_batch_and_channels(int64_t batch, int64_t channels, at::IntArrayRef spatial) {
  std::vector<int64_t> sizes{batch, channels};
  sizes.insert(sizes.end(), spatial.begin(), spatial.end());
  return sizes;
}

}  // namespace

at::Tensor window_view(const at::Tensor& wide, at::IntArrayRef positions, const ConvGeometry& g) {
  const size_t dims = spatial_dims(g);
  at::Tensor source = wide;
  if (padded(g)) {
    std::vector<int64_t> pad;  // constant_pad_nd's pairs start at the last dimension
    for (size_t d = dims; d-- > 0;) pad.insert(pad.end(), {g.padding[d], g.padding[d]});
    source = at::constant_pad_nd(wide, pad, 0);
  }
  std::vector<int64_t> strides{source.stride(1)};
  for (size_t d = 0; d < dims; ++d) strides.push_back(source.stride(2 + d) * g.dilation[d]);
  strides.push_back(source.stride(0));
  for (size_t d = 0; d < dims; ++d) strides.push_back(source.stride(2 + d) * g.stride[d]);
  return source.as_strided(window_sizes(source.size(0), source.size(1), positions, g), strides,
                           source.storage_offset());
}

at::Tensor sum_windows(const at::Tensor& windows, at::IntArrayRef wide_sizes, const ConvGeometry& g) {
  const size_t dims = spatial_dims(g);
  const at::IntArrayRef positions = windows.sizes().slice(2 + dims);
  std::vector<int64_t> padded_sizes = wide_sizes.vec();
  for (size_t d = 0; d < dims; ++d) padded_sizes[2 + d] += 2 * g.padding[d];
  at::Tensor buffer = at::zeros(padded_sizes, windows.options());

  // For each kernel offset, one strided in-place add of its window elements (no two
  // positions of one offset meet), into the zero-padded buffer whose border is then dropped.
  std::vector<int64_t> target_sizes{wide_sizes[0], wide_sizes[1]}, target_strides{buffer.stride(0), buffer.stride(1)};
  for (size_t d = 0; d < dims; ++d) {
    target_sizes.push_back(positions[d]);
    target_strides.push_back(buffer.stride(2 + d) * g.stride[d]);
  }
  const int64_t offsets = c10::multiply_integers(g.kernel_size);
  for (int64_t k = 0; k < offsets; ++k) {
    at::Tensor elements = windows;
    int64_t storage_offset = 0, rest = k;
    for (size_t d = dims; d-- > 0;) {  // the last kernel dimension varies fastest
      const int64_t index = rest % g.kernel_size[d];
      rest /= g.kernel_size[d];
      storage_offset += index * g.dilation[d] * buffer.stride(2 + d);
      elements = elements.select(1 + d, index);
    }
    buffer.as_strided(target_sizes, target_strides, storage_offset).add_(elements.transpose(0, 1));
  }
  if (!padded(g)) return buffer;
  at::Tensor wide = buffer;
  for (size_t d = 0; d < dims; ++d) wide = wide.narrow(2 + d, g.padding[d], wide_sizes[2 + d]);
  return wide;
}

at::Tensor conv_forward(const at::Tensor& input, const at::Tensor& weight, const std::optional<at::Tensor>& bias,
                        const ConvGeometry& geometry) {
  const std::vector<int64_t> positions = window_positions(spatial_sizes(input), geometry);
  at::Tensor output =
      at::empty(with_batch_and_channels(input.size(0), weight.size(0), positions), input.options());
  const at::Tensor w = weight_matrix(weight, geometry.groups);
  for_batch_slices(input.size(0), input.size(1), positions, geometry, [&](int64_t start, int64_t length) {
    const at::Tensor columns = unfold_columns(input.narrow(0, start, length), positions, geometry);
    output.narrow(0, start, length).copy_(narrow_from_matrix(at::bmm(w, columns), length, positions));
  });
  add_bias(output, bias);
  return output;
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> conv_backward(const at::Tensor& grad_output, const at::Tensor& input,
                                                             const at::Tensor& weight, const ConvGeometry& geometry,
                                                             std::array<bool, 3> output_mask) {
  const std::vector<int64_t> positions = spatial_sizes(grad_output);
  const at::Tensor w = weight_matrix(weight, geometry.groups);
  at::Tensor grad_input, grad_weight;
  if (output_mask[0]) grad_input = at::empty(input.sizes(), input.options());
  for_batch_slices(input.size(0), input.size(1), positions, geometry, [&](int64_t start, int64_t length) {
    const at::Tensor input_slice = input.narrow(0, start, length);
    const at::Tensor g = narrow_matrix(grad_output.narrow(0, start, length), geometry.groups);
    if (output_mask[0]) {
      grad_input.narrow(0, start, length)
          .copy_(fold_columns(at::bmm(w.transpose(1, 2), g), input_slice.sizes(), positions, geometry));
    }
    if (output_mask[1]) {
      const at::Tensor columns = unfold_columns(input_slice, positions, geometry);
      accumulate(grad_weight, at::bmm(g, columns.transpose(1, 2)).reshape(weight.sizes()));
    }
  });
  if (output_mask[1] && !grad_weight.defined()) grad_weight = at::zeros_like(weight);
  return {grad_input, grad_weight, output_mask[2] ? bias_gradient(grad_output) : at::Tensor()};
}

at::Tensor conv_transpose_forward(const at::Tensor& input, const at::Tensor& weight,
                                  const std::optional<at::Tensor>& bias, const ConvGeometry& geometry,
                                  at::IntArrayRef output_padding) {
  const std::vector<int64_t> positions = spatial_sizes(input);
  std::vector<int64_t> wide_spatial;
  for (size_t d = 0; d < spatial_dims(geometry); ++d) {
    wide_spatial.push_back((positions[d] - 1) * geometry.stride[d] - 2 * geometry.padding[d] +
                           geometry.dilation[d] * (geometry.kernel_size[d] - 1) + output_padding[d] + 1);
  }
  check_output_sizes(positions, wide_spatial);
  const int64_t channels = weight.size(1) * geometry.groups;
  at::Tensor output = at::empty(with_batch_and_channels(input.size(0), channels, wide_spatial), input.options());
  const at::Tensor w = weight_matrix(weight, geometry.groups);
  for_batch_slices(input.size(0), channels, positions, geometry, [&](int64_t start, int64_t length) {
    const at::Tensor x = narrow_matrix(input.narrow(0, start, length), geometry.groups);
    const std::vector<int64_t> wide_sizes = with_batch_and_channels(length, channels, wide_spatial);
    output.narrow(0, start, length).copy_(fold_columns(at::bmm(w.transpose(1, 2), x), wide_sizes, positions, geometry));
  });
  add_bias(output, bias);
  return output;
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> conv_transpose_backward(const at::Tensor& grad_output,
                                                                       const at::Tensor& input,
                                                                       const at::Tensor& weight,
                                                                       const ConvGeometry& geometry,
                                                                       std::array<bool, 3> output_mask) {
  const std::vector<int64_t> positions = spatial_sizes(input);
  const at::Tensor w = weight_matrix(weight, geometry.groups);
  at::Tensor grad_input, grad_weight;
  if (output_mask[0]) grad_input = at::empty(input.sizes(), input.options());
  for_batch_slices(input.size(0), grad_output.size(1), positions, geometry, [&](int64_t start, int64_t length) {
    const at::Tensor columns = unfold_columns(grad_output.narrow(0, start, length), positions, geometry);
    if (output_mask[0]) {
      grad_input.narrow(0, start, length).copy_(narrow_from_matrix(at::bmm(w, columns), length, positions));
    }
    if (output_mask[1]) {
      const at::Tensor x = narrow_matrix(input.narrow(0, start, length), geometry.groups);
      accumulate(grad_weight, at::bmm(x, columns.transpose(1, 2)).reshape(weight.sizes()));
    }
  });
  if (output_mask[1] && !grad_weight.defined()) grad_weight = at::zeros_like(weight);
  return {grad_input, grad_weight, output_mask[2] ? bias_gradient(grad_output) : at::Tensor()};
}

}  // namespace torch_core::composite
