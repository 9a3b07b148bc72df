#include "third_device/torch_cuda/torch_cuda/csrc/aten/engine/cuda_engine.h"

#include <c10/util/Exception.h>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/engine/cuda_kernels.h"
#include "torch_core/csrc/aten/engine/kernel_engine.h"

namespace torch_cuda::engine {

namespace {

using torch_core::engine::ElementwiseCall;
using torch_core::engine::ElementwiseOp;
using torch_core::engine::OperandLoop;
using torch_core::engine::ReduceCall;
using torch_core::engine::ReduceOp;

class CudaKernelEngine final : public torch_core::engine::KernelEngine {
 public:
  void elementwise(const ElementwiseCall& call, const OperandLoop& loop, torch_core::StreamHandle stream) override {
    switch (call.op) {
#define TORCH_CUDA_CASE(name) \
  case ElementwiseOp::k##name: return run_##name(call, loop, stream);
      TORCH_CORE_ELEMENTWISE_OPS(TORCH_CUDA_CASE)
#undef TORCH_CUDA_CASE
      case ElementwiseOp::kCount:
        break;
    }
    TORCH_INTERNAL_ASSERT(false, "unknown elementwise operation ", static_cast<int>(call.op));
  }

  void reduce(const ReduceCall& call, const OperandLoop& loop, torch_core::StreamHandle stream) override {
    switch (call.op) {
#define TORCH_CUDA_CASE(name) \
  case ReduceOp::k##name: return reduce_##name(call, loop, stream);
      TORCH_CORE_REDUCE_OPS(TORCH_CUDA_CASE)
#undef TORCH_CUDA_CASE
      case ReduceOp::kCount:
        break;
    }
    TORCH_INTERNAL_ASSERT(false, "unknown reduction ", static_cast<int>(call.op));
  }

  void index(const torch_core::engine::IndexCall& call, const OperandLoop& loop,
             torch_core::StreamHandle stream) override {
    run_index(call, loop, stream);
  }

  void random(const torch_core::engine::RandomCall& call, const OperandLoop& loop,
              torch_core::StreamHandle stream) override {
    run_random(call, loop, stream);
  }

  std::size_t sort_scratch_bytes(const torch_core::engine::SortCall& call) override {
    return engine::sort_scratch_bytes(call);
  }

  void sort(const torch_core::engine::SortCall& call, torch_core::StreamHandle stream) override {
    run_sort(call, stream);
  }

  std::size_t scan_scratch_bytes(const torch_core::engine::ScanCall& call) override {
    return engine::scan_scratch_bytes(call);
  }

  void scan(const torch_core::engine::ScanCall& call, torch_core::StreamHandle stream) override {
    run_scan(call, stream);
  }
};

}  // namespace

void register_cuda_engine() {
  // Leaked: the engine serves stub calls for the rest of the process.
  torch_core::engine::register_kernel_engine(c10::DeviceType::CUDA, new CudaKernelEngine());
}

}  // namespace torch_cuda::engine
