// Where the simulated cuDNN RNN (host_rnn.cpp) keeps things: its weight space (per
// pseudo-layer the input matrices, the recurrent ones, the projection, then the input and
// recurrent biases, in elements) and its reserve (a record of doubles per pseudo-layer and
// row, then the dropout scales), both laid out from the plan alone.
#pragma once

#include <cstdint>
#include <vector>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/rnn_plan.h"

namespace torch_cuda::cudnn::host_rnn {

// Element offsets of the simulated weight space and reserve.
class Layout {
 public:
  explicit Layout(const RnnPlan& p) : p_(p) {
    std::int64_t offset = 0;
    for (int q = 0; q < p.pseudo_layers(); ++q) {
      base_.push_back(offset);
      offset += pseudo_layer_size(q);
    }
    weights_ = offset;
    record_ = 2 * gh() + 4 * p.hidden_size + 2 * p.proj_size;
  }

  std::int64_t weights() const { return weights_; }
  std::int64_t gh() const { return static_cast<std::int64_t>(p_.gates) * p_.hidden_size; }
  std::int64_t input_of(int q) const { return p_.layer_input_size(q / p_.directions); }
  // Matrices: gate g's input and recurrent matrices, the projection; then the biases.
  std::int64_t w(int q, int g) const { return base_[q] + g * p_.hidden_size * input_of(q); }
  std::int64_t r(int q, int g) const {
    return base_[q] + gh() * input_of(q) + static_cast<std::int64_t>(g) * p_.hidden_size * p_.proj_size;
  }
  std::int64_t proj(int q) const { return r(q, p_.gates); }
  std::int64_t bias_w(int q, int g) const {
    return proj(q) + (p_.projected() ? std::int64_t{p_.proj_size} * p_.hidden_size : 0) + g * p_.hidden_size;
  }
  std::int64_t bias_r(int q, int g) const { return bias_w(q, p_.gates) + g * p_.hidden_size; }

  // The reserve, in doubles: a record per pseudo-layer and row, then the dropout scales of
  // each layer's output but the last.
  std::int64_t record(int q, std::int64_t row) const { return (q * p_.rows + row) * record_; }
  std::int64_t mask(int layer, std::int64_t row) const {
    return p_.pseudo_layers() * p_.rows * record_ + (layer * p_.rows + row) * p_.directions * p_.proj_size;
  }
  std::int64_t reserve_doubles() const { return mask(p_.num_layers - 1, 0); }

 private:
  std::int64_t pseudo_layer_size(int q) const {
    const std::int64_t projection = p_.projected() ? std::int64_t{p_.proj_size} * p_.hidden_size : 0;
    return gh() * input_of(q) + gh() * p_.proj_size + projection + 2 * gh();
  }

  const RnnPlan& p_;
  std::vector<std::int64_t> base_;
  std::int64_t weights_ = 0;
  std::int64_t record_ = 0;
};

// One record's parts (offsets within it): the gates after their activations (a ReLU or tanh
// cell's one gate is its output), LSTM's cell, tanh of the cell (LSTM) or the new gate's
// recurrent part (GRU), LSTM's output before the projection, the output; then what backward
// data leaves: the gates' pre-activation gradients, the GRU recurrent part's, the output's.
struct Record {
  std::int64_t act, cell, aux, unprojected, out, dpre, daux, dout;
  explicit Record(const RnnPlan& p) {
    const std::int64_t gh = static_cast<std::int64_t>(p.gates) * p.hidden_size, h = p.hidden_size;
    act = 0;
    cell = gh;
    aux = cell + h;
    unprojected = aux + h;
    out = unprojected + h;
    dpre = out + p.proj_size;
    daux = dpre + gh;
    dout = daux + h;
  }
};

}  // namespace torch_cuda::cudnn::host_rnn
