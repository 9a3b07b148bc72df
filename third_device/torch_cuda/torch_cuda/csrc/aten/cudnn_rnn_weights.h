// What the CUDA key's cuDNN RNN operators (cudnn_rnn_ops.cpp) and the RNN stubs' CUDA slots
// (cudnn_rnn_stubs.cpp) share: the RNN as cuDNN is asked about it, and torch's view of a
// cuDNN weight space, found as stock's get_parameters finds it, by asking the executable
// where each linear layer lives (cudnnGetRNNWeightParams): per pseudo-layer (layer x
// direction) w_ih, w_hh, b_ih, b_hh and, with a projection, w_hr, each gate's matrices
// merged into one view (the weight space keeps them adjacent).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <ATen/core/Tensor.h>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/rnn_executable.h"

namespace torch_cuda::native {

// An RNN's shape as torch's operators pass it (`mode` is cudnnRNNMode_t's value).
struct RnnShape {
  std::int64_t mode = 2;
  std::int64_t input_size = 0;
  std::int64_t hidden_size = 0;
  std::int64_t proj_size = 0;
  std::int64_t num_layers = 1;
  bool bidirectional = false;
};

// `shape` over data of `type` on `batch_sizes` steps, checked and planned (a plan's refusal
// becomes torch's error).
cudnn::RnnCall rnn_call(const RnnShape& shape, c10::ScalarType type, std::vector<std::int64_t> batch_sizes);
cudnn::RnnPlan plan_or_throw(const cudnn::RnnCall& call);

// The executable of `plan` on the current device.
std::unique_ptr<cudnn::RnnExecutable> rnn_executable(const cudnn::RnnPlan& plan, const at::Tensor& dropout_state = {});

// The weight space's size in elements of the weights' type.
std::int64_t weight_space_elements(const cudnn::RnnExecutable& executable, const at::Tensor& like);

// Views of `weight_buf` in the order of torch's parameters, `weight_stride0` per pseudo-layer
// (w_ih, w_hh[, b_ih, b_hh][, w_hr]): the biases left out when weight_stride0 leaves them out.
std::vector<at::Tensor> weight_views(const cudnn::RnnExecutable& executable, const cudnn::RnnPlan& plan,
                                     const at::Tensor& weight_buf, std::int64_t weight_stride0);

// Copies the user's `weights` into their views (counts, sizes and types must agree).
void copy_into_views(at::TensorList weights, const std::vector<at::Tensor>& views);

}  // namespace torch_cuda::native
