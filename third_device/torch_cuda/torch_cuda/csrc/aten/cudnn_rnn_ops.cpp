// cuDNN's RNN operators on the CUDA key, shared by both variants, as stock's cudnn/RNN.cpp
// computes them: _cudnn_rnn_flatten_weight (the weight space, the module's parameters made
// views into it), _cudnn_rnn (forward, training keeping a reserve for backward),
// _cudnn_rnn_backward (data, then weights into a zeroed weight space whose views are the
// parameters' gradients) and _cudnn_init_dropout_state. Each plans the call (cudnn/rnn_plan.h)
// and runs it on the current stream: cuDNN in the real variant, the same calls on the host in
// the simulated one. Data is (seq, batch, features), or packed with batch_sizes, and
// batch_first transposes as stock does.
#include <array>
#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

#include <ATen/TensorUtils.h>
#include <ATen/core/Tensor.h>
#include <ATen/native/RNN.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/zeros.h>
#include <ATen/ops/zeros_like.h>
#include <c10/core/DeviceGuard.h>
#include <c10/util/irange.h>
#include <torch/library.h>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn_rnn_weights.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_backend.h"

namespace torch_cuda::native {
namespace {

using at::Tensor;

constexpr const char* kWeightFormatWarning =
    "RNN module weights are not part of single contiguous chunk of memory. This means they need to be compacted "
    "at every call, possibly greatly increasing memory usage. To compact weights again call flatten_parameters().";

// The call's tensors' shapes, as stock's _hidden_size, _cell_size and _output_size.
struct Sizes {
  std::vector<std::int64_t> hidden, cell, output, input;
};

Sizes sizes_of(const cudnn::RnnPlan& plan) {
  const std::int64_t pseudo = plan.pseudo_layers(), batch = plan.batch;
  Sizes sizes;
  sizes.hidden = {pseudo, batch, plan.proj_size};
  sizes.cell = {pseudo, batch, plan.hidden_size};
  const std::int64_t width = std::int64_t{plan.directions} * plan.proj_size;
  if (plan.packed) {
    sizes.output = {plan.rows, width};
    sizes.input = {plan.rows, plan.input_size};
  } else {
    sizes.output = {plan.max_seq_length, batch, width};
    sizes.input = {plan.max_seq_length, batch, plan.input_size};
  }
  return sizes;
}

// Steps of the (seq, batch, features) or packed input: each step's batch size.
std::vector<std::int64_t> steps_of(const Tensor& input, at::IntArrayRef batch_sizes) {
  if (!batch_sizes.empty()) {
    TORCH_CHECK(input.dim() == 2, "cuDNN RNN: packed input must be 2-d (rows, features), got ", input.dim(), "-d");
    return batch_sizes.vec();
  }
  TORCH_CHECK(input.dim() == 3, "cuDNN RNN: input must be 3-d (seq, batch, features), got ", input.dim(), "-d");
  TORCH_CHECK(input.size(0) > 0 && input.size(1) > 0, "cuDNN RNN: input must not be empty, got ", input.sizes());
  return std::vector<std::int64_t>(input.size(0), input.size(1));
}

torch_core::StreamHandle stream_of(const Tensor& t) { return backend().streams().current_handle(t.device().index()); }

void check_size(const char* what, const Tensor& t, const std::vector<std::int64_t>& expected) {
  TORCH_CHECK(!t.defined() || t.sizes().equals(expected), "Expected ", what, " size ", at::IntArrayRef{expected},
              ", got ", t.sizes());
}

// The plan of a forward or backward call over the time-major `input`, and its tensors'
// sizes, after the checks both make of the input and the initial states. An LSTM without cx
// starts from a zero cell, as cuDNN takes a null cx.
std::pair<cudnn::RnnPlan, Sizes> checked_plan(const Tensor& input, at::IntArrayRef batch_sizes, int64_t mode,
                                              int64_t hidden_size, int64_t proj_size, int64_t num_layers,
                                              bool bidirectional, bool train, double dropout, const Tensor& hx,
                                              const Tensor& cx) {
  const RnnShape shape{mode, input.size(-1), hidden_size, proj_size, num_layers, bidirectional};
  cudnn::RnnCall call = rnn_call(shape, input.scalar_type(), steps_of(input, batch_sizes));
  call.packed = !batch_sizes.empty();
  call.train = train;
  call.dropout = dropout;
  cudnn::RnnPlan plan = plan_or_throw(call);
  TORCH_CHECK(plan.mode == cudnn::RnnMode::kLstm || !cx.defined(), "rnn: illegal defined cx for non-LSTM RNN");
  const Sizes sizes = sizes_of(plan);
  TORCH_CHECK(hx.is_contiguous(), "rnn: hx is not contiguous");
  TORCH_CHECK(!cx.defined() || cx.is_contiguous(), "rnn: cx is not contiguous");
  check_size("input", input, sizes.input);  // packed: the rows batch_sizes add up to
  check_size("hidden", hx, sizes.hidden);
  check_size("cell", cx, sizes.cell);
  return {std::move(plan), sizes};
}

Tensor flatten_weight(at::TensorList weight_arr, int64_t weight_stride0, int64_t input_size, int64_t mode,
                      int64_t hidden_size, int64_t proj_size, int64_t num_layers, bool /*batch_first*/,
                      bool bidirectional) {
  TORCH_CHECK(!weight_arr.empty(), "empty weight list");
  const Tensor& any = weight_arr[0];
  TORCH_CHECK(any.is_cuda(), "_cudnn_rnn_flatten_weight: weights must be CUDA tensors, got ", any.device());
  const c10::DeviceGuard guard(any.device());
  const RnnShape shape{mode, input_size, hidden_size, proj_size, num_layers, bidirectional};
  const cudnn::RnnPlan plan = plan_or_throw(rnn_call(shape, any.scalar_type(), {1}));
  const auto executable = rnn_executable(plan);
  const Tensor weight_buf = at::zeros({weight_space_elements(*executable, any)}, any.options());
  const auto views = weight_views(*executable, plan, weight_buf, weight_stride0);
  copy_into_views(weight_arr, views);
  // The parameters become views into the weight space, as stock's flatten leaves them.
  for (const auto i : c10::irange(views.size())) {
    Tensor original = weight_arr[i];
    original.set_(views[i].view_as(original));
  }
  return weight_buf;
}

std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor> rnn_forward(
    const Tensor& input_r, at::TensorList weight, int64_t weight_stride0, const std::optional<Tensor>& weight_buf_opt,
    const Tensor& hx, const std::optional<Tensor>& cx_opt, int64_t mode, int64_t hidden_size, int64_t proj_size,
    int64_t num_layers, bool batch_first, double dropout, bool train, bool bidirectional, at::IntArrayRef batch_sizes,
    const std::optional<Tensor>& dropout_state_opt) {
  const Tensor cx = cx_opt.value_or(Tensor());
  const Tensor dropout_state = dropout_state_opt.value_or(Tensor());
  Tensor weight_buf = weight_buf_opt.value_or(Tensor());
  at::native::check_attributes(input_r, weight, {hx, cx}, /*check_dtype=*/true);
  if (!weight_buf.defined()) TORCH_WARN(kWeightFormatWarning);
  if (dropout_state.defined()) {
    at::checkSameGPU("cudnn_rnn", {input_r, "input", 1}, {dropout_state, "dropout_states", 15});
  }
  const bool packed = !batch_sizes.empty();
  const Tensor input = batch_first && !packed ? input_r.transpose(0, 1) : input_r;
  const c10::DeviceGuard guard(input.device());
  const auto [plan, sizes] = checked_plan(input, batch_sizes, mode, hidden_size, proj_size, num_layers,
                                          bidirectional, train, dropout, hx, cx);
  const auto executable = rnn_executable(plan, dropout_state);
  const std::int64_t elements = weight_space_elements(*executable, input);
  if (!weight_buf.defined()) {
    weight_buf = at::zeros({elements}, input.options());
    copy_into_views(weight, weight_views(*executable, plan, weight_buf, weight_stride0));
  }
  TORCH_CHECK(weight_buf.is_contiguous() && weight_buf.numel() >= elements, "cuDNN RNN: weight_buf holds ",
              weight_buf.numel(), " elements where the weight space needs ", elements,
              "; make it with torch._cudnn_rnn_flatten_weight");
  const Tensor x = input.contiguous();
  Tensor output = at::empty(sizes.output, input.options());
  Tensor hy = at::empty(sizes.hidden, hx.options());
  Tensor cy = cx.defined() ? at::empty(sizes.cell, cx.options()) : at::empty({0}, hx.options());
  const Tensor workspace = at::empty({executable->workspace_size()}, input.options().dtype(at::kByte));
  Tensor reserve = at::empty({executable->reserve_size()}, input.options().dtype(at::kByte));
  cudnn::RnnBuffers buffers;
  buffers.x = x.const_data_ptr();
  buffers.y = output.data_ptr();
  buffers.hx = hx.const_data_ptr();
  buffers.cx = cx.defined() ? cx.const_data_ptr() : nullptr;
  buffers.hy = hy.data_ptr();
  buffers.cy = cx.defined() ? cy.data_ptr() : nullptr;
  buffers.weights = weight_buf.const_data_ptr();
  buffers.workspace = workspace.data_ptr();
  buffers.reserve = train ? reserve.data_ptr() : nullptr;
  executable->forward(buffers, stream_of(input));
  if (batch_first && !packed) output.transpose_(0, 1);
  return {output, hy, cy, reserve, weight_buf};
}

std::tuple<Tensor, Tensor, Tensor, std::vector<Tensor>> rnn_backward(
    const Tensor& input_r, at::TensorList weight, int64_t weight_stride0, const Tensor& weight_buf, const Tensor& hx,
    const std::optional<Tensor>& cx_opt, const Tensor& output_r, const std::optional<Tensor>& grad_output_opt,
    const std::optional<Tensor>& grad_hy_opt, const std::optional<Tensor>& grad_cy_opt, int64_t mode,
    int64_t hidden_size, int64_t proj_size, int64_t num_layers, bool batch_first, double dropout, bool train,
    bool bidirectional, at::IntArrayRef batch_sizes, const std::optional<Tensor>& dropout_state_opt,
    const Tensor& reserve, std::array<bool, 4> output_mask) {
  const Tensor cx = cx_opt.value_or(Tensor());
  const Tensor grad_output_r = grad_output_opt.value_or(Tensor());
  const Tensor grad_hy_r = grad_hy_opt.value_or(Tensor());
  const Tensor grad_cy_r = grad_cy_opt.value_or(Tensor());
  const Tensor dropout_state = dropout_state_opt.value_or(Tensor());
  if (!grad_output_r.defined() && !grad_hy_r.defined() && !grad_cy_r.defined()) {
    return {Tensor(), Tensor(), Tensor(), std::vector<Tensor>(weight.size())};
  }
  TORCH_CHECK(train, "cudnn RNN backward can only be called in training mode");
  const bool packed = !batch_sizes.empty();
  const auto time_major = [&](const Tensor& t) { return batch_first && !packed ? t.transpose(0, 1) : t; };
  const Tensor input = time_major(input_r), output = time_major(output_r);
  const c10::DeviceGuard guard(input.device());
  const auto [plan, sizes] = checked_plan(input, batch_sizes, mode, hidden_size, proj_size, num_layers,
                                          bidirectional, train, dropout, hx, cx);
  check_size("output", output, sizes.output);
  const auto executable = rnn_executable(plan, dropout_state);
  TORCH_CHECK(reserve.numel() >= executable->reserve_size(), "cuDNN RNN backward: the reserve holds ", reserve.numel(),
              " bytes where ", executable->reserve_size(), " are needed; pass the one _cudnn_rnn returned");
  const Tensor grad_output =
      time_major(grad_output_r.defined() ? grad_output_r : at::zeros_like(output_r)).contiguous();
  const Tensor dhy = (grad_hy_r.defined() ? grad_hy_r : at::zeros_like(hx)).contiguous();
  const Tensor dcy = cx.defined() ? (grad_cy_r.defined() ? grad_cy_r : at::zeros_like(cx)).contiguous() : Tensor();
  check_size("d_hidden", dhy, sizes.hidden);
  check_size("d_cell", dcy, sizes.cell);
  const Tensor x = input.contiguous(), y = output.contiguous();
  Tensor dx = at::empty(sizes.input, input.options());
  Tensor dhx = at::empty(sizes.hidden, hx.options());
  Tensor dcx = cx.defined() ? at::empty(sizes.cell, cx.options()) : Tensor();
  const Tensor workspace = at::empty({executable->workspace_size()}, input.options().dtype(at::kByte));
  cudnn::RnnBuffers buffers;
  buffers.x = x.const_data_ptr();
  buffers.y = const_cast<void*>(y.const_data_ptr());
  buffers.hx = hx.const_data_ptr();
  buffers.cx = cx.defined() ? cx.const_data_ptr() : nullptr;
  buffers.dy = grad_output.const_data_ptr();
  buffers.dhy = dhy.const_data_ptr();
  buffers.dcy = cx.defined() ? dcy.const_data_ptr() : nullptr;
  buffers.dx = dx.data_ptr();
  buffers.dhx = dhx.data_ptr();
  buffers.dcx = cx.defined() ? dcx.data_ptr() : nullptr;
  buffers.weights = weight_buf.const_data_ptr();
  buffers.workspace = workspace.data_ptr();
  buffers.reserve = const_cast<void*>(reserve.const_data_ptr());  // backward data writes into it, as cuDNN does
  const torch_core::StreamHandle stream = stream_of(input);
  // Always, since the weights' pass reads what it leaves in the reserve.
  executable->backward_data(buffers, stream);
  if (batch_first && !packed) dx = dx.transpose(0, 1);
  std::vector<Tensor> dw;
  if (output_mask[3]) {
    const Tensor dweights = at::zeros(weight_buf.sizes(), weight_buf.options());
    buffers.dweights = dweights.data_ptr();
    executable->backward_weights(buffers, stream);
    dw = weight_views(*executable, plan, dweights, weight_stride0);
  }
  return {dx, dhx, dcx, dw};
}

Tensor init_dropout_state(double dropout, bool train, int64_t dropout_seed, std::optional<c10::ScalarType> dtype,
                          std::optional<c10::Layout> layout, std::optional<c10::Device> device,
                          std::optional<bool> pin_memory) {
  const auto options =
      c10::TensorOptions().dtype(dtype).layout(layout).device(device).pinned_memory(pin_memory);
  TORCH_CHECK(options.device().is_cuda(), "_cudnn_init_dropout_state makes a CUDA tensor, not one on ",
              options.device());
  // cuDNN seeds its generator only for a positive probability; a state made without one
  // would hold no random state for a later training call to restore.
  TORCH_CHECK(train && dropout > 0, "_cudnn_init_dropout_state: a dropout state is for training with "
              "dropout > 0, got dropout=", dropout, ", train=", train);
  const c10::DeviceGuard guard(options.device());
  Tensor state = at::empty({cudnn::dropout_state_size()}, options.dtype(at::kByte));
  cudnn::init_dropout_state(state.data_ptr(), state.numel(), static_cast<float>(dropout),
                            static_cast<std::uint64_t>(dropout_seed), stream_of(state));
  return state;
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, CUDA, m) {
  m.impl("_cudnn_rnn_flatten_weight", TORCH_FN(flatten_weight));
  m.impl("_cudnn_rnn", TORCH_FN(rnn_forward));
  m.impl("_cudnn_rnn_backward", TORCH_FN(rnn_backward));
  m.impl("_cudnn_init_dropout_state", TORCH_FN(init_dropout_state));
}

}  // namespace torch_cuda::native
