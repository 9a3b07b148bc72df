// Separable resampling: average pooling (fixed and adaptive windows) and upsampling
// (nearest, linear, cubic) weigh each output element by a product of per-dimension
// weights, so each is a chain of small matrix products, one per spatial dimension:
// out = A_d x along d for d = D, H, W, and the backward applies the transposes. The
// matrices are built on the host with stock's index arithmetic (ATen/native/UpSample.h
// and the CUDA pooling kernels' window bounds) in the kernel's accumulation type, and the
// products run on the device's gemm; Half and BFloat16 compute in float, as stock's
// kernels accumulate. A dedicated kernel would do fewer flops; this one is exact in its
// index logic and runs on every backend's engine.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <ATen/core/Tensor.h>

namespace torch_core::composite {

// One spatial dimension's weights: how output position o reads input positions.
struct Axis {
  int64_t input_size = 0;
  int64_t output_size = 0;
};

// nearest's source index of each output position (a CPU int64 vector): stock's
// nearest_neighbor(_exact)_compute_source_index with the float scale its kernels use.
at::Tensor nearest_indices(Axis axis, std::optional<double> scale, bool exact);

// reflection / replication padding's source index of each output position (a CPU int64
// vector): `before` and `after` positions added (negative ones crop), read back from the
// input mirrored about its edges (reflect) or from the nearest edge.
at::Tensor padding_indices(int64_t input_size, int64_t before, int64_t after, bool reflect);
// The (indices.size(0) x input_size) matrix of a gather's weights: one 1 per row.
at::Tensor gather_weights(const at::Tensor& indices, int64_t input_size, at::ScalarType accumulate);

// The (output_size x input_size) weight matrices, as CPU tensors of `accumulate` (kFloat
// or kDouble, the type stock's kernel computes indices and weights in).
at::Tensor nearest_weights(Axis axis, std::optional<double> scale, bool exact, at::ScalarType accumulate);
at::Tensor linear_weights(Axis axis, bool align_corners, std::optional<double> scale, at::ScalarType accumulate);
at::Tensor cubic_weights(Axis axis, bool align_corners, std::optional<double> scale, at::ScalarType accumulate);
// avg_pool's windows: kernel, stride and padding of this dimension; `divide` false
// leaves the window sums undivided (divisor_override, which the caller applies).
at::Tensor average_weights(Axis axis, int64_t kernel, int64_t stride, int64_t padding, bool count_include_pad,
                           bool divide, at::ScalarType accumulate);
at::Tensor adaptive_average_weights(Axis axis, at::ScalarType accumulate);

// Stock's AT_DISPATCH error for a dtype its kernel `kernel_name` lacks: floating types,
// Half and BFloat16, and uint8 where `allow_byte`.
void check_floating(at::ScalarType dtype, const char* kernel_name, bool allow_byte = false);
// Raises AT_DISPATCH's NotImplementedError ("<kernel_name>" not implemented for '<dtype>')
// unless `supported`.
void check_dtype_supported(bool supported, at::ScalarType dtype, const char* kernel_name);

// The type the products run in for an input of `dtype`: float for Half, BFloat16 and
// float, double for double.
at::ScalarType accumulate_type(at::ScalarType dtype);

// x's last weights.size() dimensions resampled (forward), or the gradient of that
// (backward: the transposed weights), written into `out` (any strides, x's dtype).
void resample_into(const at::Tensor& out, const at::Tensor& x, const std::vector<at::Tensor>& weights);
// x's last indices.size() dimensions gathered at `indices` (nearest's forward, any dtype).
void select_into(const at::Tensor& out, const at::Tensor& x, const std::vector<at::Tensor>& indices);
void resample_backward_into(const at::Tensor& grad_input, const at::Tensor& grad_output,
                            const std::vector<at::Tensor>& weights);

}  // namespace torch_core::composite
