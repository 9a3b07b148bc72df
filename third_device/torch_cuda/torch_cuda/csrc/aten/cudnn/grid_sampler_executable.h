// The executable cuDNN grid-sampler plans, torch-free and shared by both variants. No
// algorithm to choose, so nothing is cached.
#pragma once

#include <memory>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/grid_sampler_plan.h"
#include "torch_core/csrc/runtime/runtime_handles.h"

namespace torch_cuda::cudnn {

// The call's device memory. Forward reads x and grid and writes y; backward reads x, grid
// and dy and writes dx and dgrid (cuDNN always computes both).
struct GridSamplerBuffers {
  const void* x = nullptr;
  const void* grid = nullptr;
  void* y = nullptr;
  const void* dy = nullptr;
  void* dx = nullptr;
  void* dgrid = nullptr;
};

class GridSamplerExecutable {
 public:
  virtual ~GridSamplerExecutable() = default;
  // Queues the call on `stream`.
  virtual void run(const GridSamplerBuffers& buffers, torch_core::StreamHandle stream) const = 0;
};

// Defined by the variant linked into _CUDAC: makes `plan` on the current device.
std::unique_ptr<GridSamplerExecutable> make_grid_sampler_executable(const GridSamplerPlan& plan);

}  // namespace torch_cuda::cudnn
