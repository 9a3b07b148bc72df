// The fused LSTM and GRU cells on any torch_core backend: stock's CUDA kernels
// _thnn_fused_lstm_cell_cuda, _thnn_fused_gru_cell_cuda and their backwards (RNN.cu), which
// nn.LSTM, nn.GRU and their cells call for CUDA and PrivateUse1 inputs (stock has no CPU
// kernel for them, so the CPU fallback cannot stand in). Written over device operators in
// the kernels' opmath (float for Half and BFloat16), with their workspace layouts:
// LSTM [i, f, g, o] after activation; GRU [r, z, n, hx, h_n + b_hn].
#include <optional>
#include <tuple>
#include <vector>

#include <ATen/TensorOperators.h>
#include <ATen/TensorUtils.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/_thnn_fused_gru_cell_backward_native.h>
#include <ATen/ops/_thnn_fused_gru_cell_native.h>
#include <ATen/ops/_thnn_fused_lstm_cell_backward_impl_native.h>
#include <ATen/ops/_thnn_fused_lstm_cell_native.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/sigmoid.h>
#include <ATen/ops/sum.h>
#include <ATen/ops/tanh.h>
#include <ATen/ops/zeros_like.h>

#include "torch_core/csrc/aten/composite/opmath.h"

namespace at::native {

namespace {

using torch_core::composite::opmath;

// Stock's checkSizes (RNN.cu): 2-d gates of one size, 1-d biases as long as a gates row,
// the previous state with gates.size(1) / factor columns, all on one device.
void check_cell_sizes(CheckedFrom c, const TensorArg& input_gates, const TensorArg& hidden_gates,
                      const TensorArg& input_bias, const TensorArg& hidden_bias, int64_t factor,
                      const TensorArg& prev_hidden) {
  checkDim(c, input_gates, 2);
  checkSameSize(c, input_gates, hidden_gates);
  const int64_t gates_size = input_gates->size(1);
  if (input_bias->defined()) {
    checkDim(c, input_bias, 1);
    checkNumel(c, input_bias, gates_size);
    checkSameSize(c, input_bias, hidden_bias);
  }
  checkDim(c, prev_hidden, 2);
  checkNumel(c, prev_hidden, input_gates->size(0) * gates_size / factor);
  std::vector<TensorArg> same_device{input_gates, hidden_gates, prev_hidden};
  if (input_bias->defined()) {
    same_device.push_back(input_bias);
    same_device.push_back(hidden_bias);
  }
  checkAllSameGPU(c, same_device);
}

// The gates' pre-activations, biases added: [B, factor * H] in opmath.
Tensor gate_inputs(const Tensor& input_gates, const Tensor& hidden_gates, const Tensor& input_bias,
                   const Tensor& hidden_bias) {
  Tensor gates = opmath(input_gates) + opmath(hidden_gates);
  if (input_bias.defined()) gates = gates + opmath(input_bias) + opmath(hidden_bias);
  return gates;
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> _thnn_fused_lstm_cell_cuda(const Tensor& input_gates, const Tensor& hidden_gates,
                                                              const Tensor& cx,
                                                              const std::optional<Tensor>& input_bias_opt,
                                                              const std::optional<Tensor>& hidden_bias_opt) {
  const Tensor input_bias = input_bias_opt.value_or(Tensor());
  const Tensor hidden_bias = hidden_bias_opt.value_or(Tensor());
  check_cell_sizes("_thnn_fused_lstm_cell_cuda", {input_gates, "input_gates", 1}, {hidden_gates, "hidden_gates", 2},
                   {input_bias, "input_bias", 3}, {hidden_bias, "hidden_bias", 4}, /*factor=*/4,
                   {cx, "prev_hidden", 5});
  const auto chunks = gate_inputs(input_gates, hidden_gates, input_bias, hidden_bias).chunk(4, 1);
  const Tensor i = at::sigmoid(chunks[0]);
  const Tensor f = at::sigmoid(chunks[1]);
  const Tensor g = at::tanh(chunks[2]);
  const Tensor o = at::sigmoid(chunks[3]);
  const Tensor cy = f * opmath(cx) + i * g;
  const Tensor hy = o * at::tanh(cy);
  const ScalarType type = input_gates.scalar_type();
  return {hy.to(type), cy.to(type), at::cat({i, f, g, o}, 1).to(type)};
}

std::tuple<Tensor, Tensor, Tensor> _thnn_fused_lstm_cell_backward_impl_cuda(const std::optional<Tensor>& grad_hy_opt,
                                                                            const std::optional<Tensor>& grad_cy_opt,
                                                                            const Tensor& cx, const Tensor& cy,
                                                                            const Tensor& workspace, bool has_bias) {
  const Tensor grad_hy = grad_hy_opt.value_or(Tensor());
  const Tensor grad_cy = grad_cy_opt.value_or(Tensor());
  if (!grad_hy.defined() && !grad_cy.defined()) return {};
  const auto gates = opmath(workspace).chunk(4, 1);
  const Tensor &i = gates[0], &f = gates[1], &g = gates[2], &o = gates[3];
  const Tensor tanh_cy = at::tanh(opmath(cy));
  const Tensor go = grad_hy.defined() ? opmath(grad_hy) : at::zeros_like(tanh_cy);
  Tensor gc = go * o * (1 - tanh_cy * tanh_cy);
  if (grad_cy.defined()) gc = gc + opmath(grad_cy);
  const Tensor grad_i = gc * g * (1 - i) * i;
  const Tensor grad_f = gc * opmath(cx) * (1 - f) * f;
  const Tensor grad_g = gc * i * (1 - g * g);
  const Tensor grad_o = go * tanh_cy * (1 - o) * o;
  const ScalarType type = workspace.scalar_type();
  const Tensor grad_gates = at::cat({grad_i, grad_f, grad_g, grad_o}, 1).to(type);
  const Tensor grad_cx = (gc * f).to(type);
  Tensor grad_bias = has_bias ? grad_gates.sum(0, /*keepdim=*/false) : Tensor();
  return {grad_gates, grad_cx, grad_bias};
}

std::tuple<Tensor, Tensor> _thnn_fused_gru_cell_cuda(const Tensor& input_gates, const Tensor& hidden_gates,
                                                     const Tensor& hx, const std::optional<Tensor>& input_bias_opt,
                                                     const std::optional<Tensor>& hidden_bias_opt) {
  const Tensor input_bias = input_bias_opt.value_or(Tensor());
  const Tensor hidden_bias = hidden_bias_opt.value_or(Tensor());
  check_cell_sizes("_thnn_fused_gru_cell_cuda", {input_gates, "input_gates", 1}, {hidden_gates, "hidden_gates", 2},
                   {input_bias, "input_bias", 3}, {hidden_bias, "hidden_bias", 4}, /*factor=*/3,
                   {hx, "prev_hidden", 5});
  Tensor in_gates = opmath(input_gates);
  Tensor hid_gates = opmath(hidden_gates);
  if (input_bias.defined()) {  // a row each, broadcast over the batch
    in_gates = in_gates + opmath(input_bias);
    hid_gates = hid_gates + opmath(hidden_bias);
  }
  const auto in = in_gates.chunk(3, 1);
  const auto hid = hid_gates.chunk(3, 1);
  const Tensor &in_r = in[0], &in_z = in[1], &in_n = in[2];
  const Tensor &hid_r = hid[0], &hid_z = hid[1], &hid_n = hid[2];
  const Tensor r = at::sigmoid(in_r + hid_r);
  const Tensor z = at::sigmoid(in_z + hid_z);
  const Tensor n = at::tanh(in_n + r * hid_n);
  const Tensor h = opmath(hx);
  const Tensor hy = n + z * (h - n);
  const ScalarType type = input_gates.scalar_type();
  return {hy.to(type), at::cat({r, z, n, h, hid_n}, 1).to(type)};
}

std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor> _thnn_fused_gru_cell_backward_cuda(const Tensor& grad_hy,
                                                                                     const Tensor& workspace,
                                                                                     bool has_bias) {
  checkDim("_thnn_fused_gru_cell_backward_cuda", TensorArg(workspace, "workspace", 2), 2);
  TORCH_CHECK(workspace.size(1) % 5 == 0, "_thnn_fused_gru_cell_backward_cuda: workspace has ", workspace.size(1),
              " columns, not a multiple of 5 (r, z, n, hx, h_n)");
  const auto parts = opmath(workspace).chunk(5, 1);
  const Tensor &r = parts[0], &z = parts[1], &n = parts[2], &h = parts[3], &hid_n = parts[4];
  const Tensor go = opmath(grad_hy);
  const Tensor grad_z = go * (h - n) * (1 - z) * z;
  const Tensor grad_in_n = go * (1 - z) * (1 - n * n);
  const Tensor grad_hid_n = grad_in_n * r;
  const Tensor grad_r = grad_in_n * hid_n * (1 - r) * r;
  const ScalarType type = workspace.scalar_type();
  const Tensor grad_input_gates = at::cat({grad_r, grad_z, grad_in_n}, 1).to(type);
  const Tensor grad_hidden_gates = at::cat({grad_r, grad_z, grad_hid_n}, 1).to(type);
  const Tensor grad_hx = (go * z).to(type);
  Tensor grad_input_bias = has_bias ? grad_input_gates.sum(0, /*keepdim=*/false) : Tensor();
  Tensor grad_hidden_bias = has_bias ? grad_hidden_gates.sum(0, /*keepdim=*/false) : Tensor();
  return {grad_input_gates, grad_hidden_gates, grad_hx, grad_input_bias, grad_hidden_bias};
}

}  // namespace at::native
