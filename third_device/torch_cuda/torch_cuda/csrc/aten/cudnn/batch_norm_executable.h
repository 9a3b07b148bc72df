// The executable cuDNN batch-norm plans, torch-free and shared by both variants. Unlike a
// convolution, a batch norm has no algorithm to choose, so nothing is cached: each call
// makes its executable, as stock describes each call afresh.
#pragma once

#include <cstdint>
#include <memory>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/batch_norm_plan.h"
#include "torch_core/csrc/runtime/runtime_handles.h"

namespace torch_cuda::cudnn {

// The call's device memory, in cuDNN's names. What a pass does not use stays null.
struct BatchNormBuffers {
  const void* x = nullptr;
  void* y = nullptr;         // forward: written
  const void* dy = nullptr;  // backward: read
  void* dx = nullptr;        // backward: written
  const void* scale = nullptr;
  const void* bias = nullptr;  // forward
  // Training: updated when the plan says so; inference: read.
  void* running_mean = nullptr;
  void* running_var = nullptr;
  // Training: the batch's mean and inverse standard deviation, written; backward: read.
  void* saved_mean = nullptr;
  void* saved_inv_std = nullptr;
  void* scale_grad = nullptr;  // backward: written
  void* bias_grad = nullptr;   // backward: written
  void* workspace = nullptr;   // workspace_size() bytes
  // Training: reserve_size() bytes, written; backward: what training wrote.
  void* reserve = nullptr;
  std::int64_t reserve_bytes = 0;
};

// A plan made for the current device.
class BatchNormExecutable {
 public:
  virtual ~BatchNormExecutable() = default;
  // Bytes of device memory run() needs as its work area.
  virtual std::int64_t workspace_size() const = 0;
  // Bytes that training keeps for backward (cuDNN's reserve space).
  virtual std::int64_t reserve_size() const = 0;
  // Queues the call on `stream`.
  virtual void run(const BatchNormBuffers& buffers, torch_core::StreamHandle stream) const = 0;
};

// Defined by the variant linked into _CUDAC: makes `plan` on the current device.
std::unique_ptr<BatchNormExecutable> make_batch_norm_executable(const BatchNormPlan& plan);

}  // namespace torch_cuda::cudnn
