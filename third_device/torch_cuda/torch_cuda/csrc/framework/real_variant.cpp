// The real variant: torch_cuda over cudart (CudaRuntime), its kernels on the CUDA engine.
#include <c10/core/Allocator.h>
#include <cuda_runtime_api.h>

#include <memory>
#include <mutex>
#include <vector>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/blas/cublas_handle.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/engine/cuda_engine.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_device_runtime.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/variant.h"

namespace torch_cuda::variant {
namespace {

// cuBLAS workspaces from the CUDA key's caching allocator (the current device's), kept
// for the process like the (handle, stream) pairs they belong to.
void* caching_allocator_workspace(std::size_t bytes) {
  static std::mutex mutex;
  static auto* const kept = new std::vector<c10::DataPtr>;  // leaked: outlives every handle
  c10::DataPtr memory = c10::GetAllocator(c10::DeviceType::CUDA)->allocate(bytes);
  void* ptr = memory.get();
  const std::lock_guard<std::mutex> lock(mutex);
  kept->push_back(std::move(memory));
  return ptr;
}

}  // namespace

const char* name() { return "cudart"; }

std::unique_ptr<torch_core::DeviceRuntime> make_runtime() { return std::make_unique<CudaRuntime>(); }

void register_kernels() {
  engine::register_cuda_engine();
  blas::set_workspace_allocator(&caching_allocator_workspace);
}

long cudart_version() { return CUDART_VERSION; }

}  // namespace torch_cuda::variant
