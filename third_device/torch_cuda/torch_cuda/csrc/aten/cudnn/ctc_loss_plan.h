// The plans of torch_cuda's cuDNN CTC loss: everything decided before cuDNN is called, in
// plain host C++ (no CUDA or cuDNN header), so that both variants run the same plan. The
// CUDA key's _cudnn_ctc_loss (cudnn_ctc_loss_ops.cpp) describes the call and plans it; an
// executor runs the plan:
//   real       cudnn/cudnn_ctc_loss_executor.cpp: a CTC loss descriptor (float compute,
//              softmax normalisation, zeroed gradients for samples that cannot align),
//              then cudnnCTCLoss with the labels and lengths in host memory, or
//              cudnnCTCLoss_v8 with them in device memory
//   simulated  simulated/csrc/host_ctc_loss.cpp: the same call on the host with cuDNN's
//              documented semantics (softmax over the alphabet, label 0 the blank, the
//              costs and the gradients with respect to the activations)
// so a wrong layout, label offset or normalisation fails in CI.
//
// Tensors: the activations (T, N, A) through their strides (torch hands its
// log-probabilities, whose softmax is the probabilities themselves); the gradients (T, N,
// A) dense; the costs (N) dense. The labels of all samples concatenated, each sample's in
// [1, A - 1].
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace torch_cuda::cudnn {

// cuDNN's longest label sequence: stock's descriptor's maxLabelLength, and what
// _use_cudnn_ctc_loss lets through (lengths below 256).
inline constexpr int kMaxCtcLabelLength = 255;

// Where the labels and both lengths live: cudnnCTCLoss reads them from host memory (the
// plan holds them), cudnnCTCLoss_v8 from device memory (the buffers point at them).
enum class CtcLengths : std::int8_t { kHost, kDevice };

// What the operator asks for.
struct CtcLossCall {
  std::array<std::int64_t, 3> sizes{};    // T, N, A
  std::array<std::int64_t, 3> strides{};  // the activations', in elements
  CtcLengths lengths = CtcLengths::kHost;
  bool deterministic = true;  // CUDNN_CTC_LOSS_ALGO_DETERMINISTIC, or the non-deterministic one
  // kHost only: the labels, concatenated, and each sample's label and input length.
  std::vector<std::int64_t> labels;
  std::vector<std::int64_t> label_lengths;
  std::vector<std::int64_t> input_lengths;
  // kDevice only: how many labels the device buffer holds.
  std::int64_t label_capacity = 0;
};

// One cuDNN CTC loss call; sizes, strides and lengths in cuDNN's ints (checked).
struct CtcLossPlan {
  std::array<int, 3> sizes{};
  std::array<int, 3> strides{};
  CtcLengths lengths = CtcLengths::kHost;
  bool deterministic = true;
  std::vector<int> labels;  // kHost only, as the call's
  std::vector<int> label_lengths;
  std::vector<int> input_lengths;
  // How many labels there are (kHost) or the device buffer holds (kDevice): cuDNN is not
  // told; the simulated executor faults on lengths reaching past it, as a GPU reading out
  // of bounds would.
  std::int64_t label_capacity = 0;

  int time_steps() const { return sizes[0]; }
  int batch() const { return sizes[1]; }
  int alphabet() const { return sizes[2]; }
};

// The plan of `call`. Throws std::invalid_argument, saying which, for an empty dimension,
// an alphabet without a label beside the blank, a size or stride beyond cuDNN's int, and
// (host lengths) lengths that do not number the batch, an input length outside [1, T], a
// label length outside [0, 255], fewer labels than the label lengths add up to, or a label
// outside [1, A - 1] among those read (labels past the lengths' sum are not read).
CtcLossPlan plan_ctc_loss(const CtcLossCall& call);

}  // namespace torch_cuda::cudnn
