// The real variant: torch_cuda over cudart (CudaRuntime), its kernels on the CUDA engine.
#include <c10/core/Allocator.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/blas/cublas_handle.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/engine/cuda_engine.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/linalg/cusolver_handle.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_device_runtime.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/variant.h"

namespace torch_cuda::variant {
namespace {

// cuBLAS workspaces from the CUDA key's caching allocator (the current device's, on the
// current stream), held until cuBLAS gives them back.
std::mutex workspaces_mutex;
auto* const workspaces = new std::unordered_map<void*, c10::DataPtr>;  // leaked: outlives every handle

void* caching_allocator_workspace(std::size_t bytes) {
  c10::DataPtr memory = c10::GetAllocator(c10::DeviceType::CUDA)->allocate(bytes);
  void* ptr = memory.get();
  const std::lock_guard<std::mutex> lock(workspaces_mutex);
  workspaces->emplace(ptr, std::move(memory));
  return ptr;
}

// Freed on the stream it was allocated on: reused only after the kernels queued there.
void release_caching_allocator_workspace(void* ptr) {
  c10::DataPtr memory;
  {
    const std::lock_guard<std::mutex> lock(workspaces_mutex);
    const auto found = workspaces->find(ptr);
    if (found == workspaces->end()) return;
    memory = std::move(found->second);
    workspaces->erase(found);
  }
  // `memory` goes back to the allocator here, outside the lock.
}

}  // namespace

const char* name() { return "cudart"; }

std::unique_ptr<torch_core::DeviceRuntime> make_runtime() { return std::make_unique<CudaRuntime>(); }

void register_kernels() {
  engine::register_cuda_engine();
  blas::set_workspace_allocator({&caching_allocator_workspace, &release_caching_allocator_workspace});
}

long cudart_version() { return CUDART_VERSION; }

// Read once per device: the choices that ask (SDPA's kernel, cuDNN's conditions) ask often.
std::pair<int, int> compute_capability(int device) {
  static std::mutex mutex;
  static std::unordered_map<int, std::pair<int, int>> known;
  const std::lock_guard<std::mutex> lock(mutex);
  auto found = known.find(device);
  if (found == known.end()) {
    const torch_core::DeviceProperties props = CudaRuntime().properties(device);
    found = known.emplace(device, std::make_pair(props.major, props.minor)).first;
  }
  return found->second;
}

std::uintptr_t current_blas_handle(torch_core::StreamHandle stream) {
  return reinterpret_cast<std::uintptr_t>(blas::current_handle(static_cast<cudaStream_t>(stream)));
}

std::uintptr_t current_solver_handle(torch_core::StreamHandle stream) {
  return reinterpret_cast<std::uintptr_t>(solver::current_handle(static_cast<cudaStream_t>(stream)));
}

void clear_blas_workspaces() { blas::clear_workspaces(); }

}  // namespace torch_cuda::variant
