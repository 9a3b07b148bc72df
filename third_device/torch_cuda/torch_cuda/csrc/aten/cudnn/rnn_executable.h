// The executable cuDNN RNN plans, torch-free and shared by both variants. As stock makes its
// descriptors afresh for each call, nothing is cached: each call makes its executable.
#pragma once

#include <cstdint>
#include <memory>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/rnn_plan.h"
#include "torch_core/csrc/runtime/runtime_handles.h"

namespace torch_cuda::cudnn {

// Where cudnnGetRNNWeightParams puts one linear layer in a weight space: its matrix (rows x
// columns, row-major) and its bias (absent, null, for the projection).
struct WeightRegion {
  void* matrix = nullptr;
  std::int64_t rows = 0;
  std::int64_t columns = 0;
  void* bias = nullptr;
  std::int64_t bias_size = 0;
};

// The call's device memory, in cuDNN's names. What a pass does not use stays null.
struct RnnBuffers {
  const void* x = nullptr;
  void* y = nullptr;  // forward: written; backward: read
  const void* hx = nullptr;
  const void* cx = nullptr;  // LSTM only
  void* hy = nullptr;        // forward
  void* cy = nullptr;
  const void* dy = nullptr;  // backward data
  const void* dhy = nullptr;
  const void* dcy = nullptr;
  void* dx = nullptr;
  void* dhx = nullptr;
  void* dcx = nullptr;
  const void* weights = nullptr;  // weight_space_size() bytes
  void* dweights = nullptr;       // backward weights: added to
  void* workspace = nullptr;      // workspace_size() bytes
  void* reserve = nullptr;        // training: reserve_size() bytes, written forward, read backward
};

// A plan made for the current device, with the dropout state it draws from (training with
// dropout only).
class RnnExecutable {
 public:
  virtual ~RnnExecutable() = default;
  virtual std::int64_t weight_space_size() const = 0;
  // Within `weight_space`: where linear layer `lin_layer` of `pseudo_layer` lives.
  virtual WeightRegion weight_params(const void* weight_space, int pseudo_layer, int lin_layer) const = 0;
  virtual std::int64_t workspace_size() const = 0;
  // Bytes training keeps for backward; 0 for inference.
  virtual std::int64_t reserve_size() const = 0;
  // Queue cudnnRNNForward (training or inference, as planned) on `stream`.
  virtual void forward(const RnnBuffers& buffers, torch_core::StreamHandle stream) const = 0;
  // Queue cudnnRNNBackwardData_v8: dx, dhx, dcx from dy, dhy, dcy (training's reserve).
  virtual void backward_data(const RnnBuffers& buffers, torch_core::StreamHandle stream) const = 0;
  // Queue cudnnRNNBackwardWeights_v8, adding to dweights; after backward_data.
  virtual void backward_weights(const RnnBuffers& buffers, torch_core::StreamHandle stream) const = 0;
};

// Defined by the variant linked into _CUDAC: makes `plan` on the current device.
// `dropout_state` is what init_dropout_state filled (null without dropout).
std::unique_ptr<RnnExecutable> make_rnn_executable(const RnnPlan& plan, void* dropout_state,
                                                   std::int64_t dropout_state_bytes);

// cuDNN's dropout random state on the current device: its size, and queueing its
// initialisation from `seed` on `stream`.
std::int64_t dropout_state_size();
void init_dropout_state(void* state, std::int64_t bytes, float dropout, std::uint64_t seed,
                        torch_core::StreamHandle stream);

}  // namespace torch_cuda::cudnn
