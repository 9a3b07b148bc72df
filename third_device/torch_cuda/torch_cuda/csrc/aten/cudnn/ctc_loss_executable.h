// The executable cuDNN CTC loss plans, torch-free and shared by both variants. As stock
// makes its descriptors afresh for each call, nothing is cached.
#pragma once

#include <cstdint>
#include <memory>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/ctc_loss_plan.h"
#include "torch_core/csrc/runtime/runtime_handles.h"

namespace torch_cuda::cudnn {

// The call's device memory. The labels and lengths are read from here only for a plan of
// CtcLengths::kDevice (int32, the labels concatenated); a kHost plan holds its own.
struct CtcLossBuffers {
  const void* activations = nullptr;
  void* costs = nullptr;      // N floats
  void* gradients = nullptr;  // T x N x A floats, dense
  const int* labels = nullptr;
  const int* label_lengths = nullptr;
  const int* input_lengths = nullptr;
  void* workspace = nullptr;  // workspace_size() bytes
};

class CtcLossExecutable {
 public:
  virtual ~CtcLossExecutable() = default;
  virtual std::int64_t workspace_size() const = 0;
  // Queues the costs and the gradients on `stream`.
  virtual void run(const CtcLossBuffers& buffers, torch_core::StreamHandle stream) const = 0;
};

// Defined by the variant linked into _CUDAC: makes `plan` on the current device.
std::unique_ptr<CtcLossExecutable> make_ctc_loss_executable(const CtcLossPlan& plan);

}  // namespace torch_cuda::cudnn
