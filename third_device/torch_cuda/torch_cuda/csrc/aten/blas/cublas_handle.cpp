#include "third_device/torch_cuda/torch_cuda/csrc/aten/blas/cublas_handle.h"

#include <map>
#include <mutex>
#include <tuple>
#include <utility>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/blas/cublas_check.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/blas/workspace_size.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_check.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/handle_pool.h"

namespace torch_cuda::blas {
namespace {

struct Workspace {
  void* memory = nullptr;
  std::size_t bytes = 0;
  WorkspaceAllocator from{};  // null functions: cudaMalloc's
};

// cuBLAS's workspace of a (handle, stream), or cuBLASLt's when it is not unified.
enum class WorkspaceUse { kCublas, kCublasLt };
using WorkspaceKey = std::tuple<cublasHandle_t, cudaStream_t, WorkspaceUse>;

struct Pool {
  std::mutex mutex;
  std::map<WorkspaceKey, Workspace> workspaces;
  WorkspaceAllocator allocator{};  // null functions: cudaMalloc and cudaFree
};

// Leaked on purpose (see the header).
Pool& pool() {
  static Pool* const instance = new Pool;
  return *instance;
}

cublasHandle_t create_handle() {
  cublasHandle_t handle = nullptr;
  TORCH_CUDABLAS_CHECK(cublasCreate(&handle));
  return handle;
}

HandlePool<cublasHandle_t>& handles() { return HandlePool<cublasHandle_t>::get(&create_handle); }

int compute_capability_major(int device) {
  int major = 0;
  TORCH_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  return major;
}

void release(const Workspace& workspace) {
  if (workspace.memory == nullptr) return;
  if (workspace.from.release != nullptr) {
    workspace.from.release(workspace.memory);
  } else {
    // cudaFree waits for the device, so no queued kernel still uses it.
    TORCH_CUDA_CHECK(cudaFree(workspace.memory));
  }
}

// The workspace of `key` of `bytes`, made on first use and when the size changed, and kept
// until then (a later stream at the same address reuses it, which is safe once the old one
// is gone).
void* workspace(const WorkspaceKey& key, std::size_t bytes) {
  Pool& p = pool();
  Workspace stale;
  WorkspaceAllocator allocator{};
  {
    std::lock_guard<std::mutex> lock(p.mutex);
    const auto found = p.workspaces.find(key);
    if (found != p.workspaces.end() && found->second.bytes == bytes) return found->second.memory;
    if (found != p.workspaces.end()) {
      stale = found->second;
      p.workspaces.erase(found);
    }
    allocator = p.allocator;
  }
  release(stale);
  Workspace made{nullptr, bytes, allocator};
  if (bytes > 0 && allocator.allocate != nullptr) {
    made.memory = allocator.allocate(bytes);
  } else if (bytes > 0) {
    TORCH_CUDA_CHECK(cudaMalloc(&made.memory, bytes));
  }
  std::lock_guard<std::mutex> lock(p.mutex);
  p.workspaces.emplace(key, made);
  return made.memory;
}

}  // namespace

void set_workspace_allocator(WorkspaceAllocator allocator) {
  Pool& p = pool();
  std::lock_guard<std::mutex> lock(p.mutex);
  p.allocator = allocator;
}

void clear_workspaces() {
  Pool& p = pool();
  std::map<WorkspaceKey, Workspace> taken;
  {
    std::lock_guard<std::mutex> lock(p.mutex);
    taken.swap(p.workspaces);
  }
  for (const auto& entry : taken) release(entry.second);
}

std::size_t created_handle_count() { return handles().created(); }

namespace {

struct Bound {
  cublasHandle_t handle;
  void* workspace;  // cuBLAS's, for the stream
  int major;        // the device's compute capability
};

Bound bind(cudaStream_t stream) {
  int device = 0;
  TORCH_CUDA_CHECK(cudaGetDevice(&device));
  cublasHandle_t handle = handles().lease(device);
  TORCH_CUDABLAS_CHECK(cublasSetStream(handle, stream));
  const int major = compute_capability_major(device);
  const std::size_t bytes = workspace_bytes(major);
  void* memory = workspace({handle, stream, WorkspaceUse::kCublas}, bytes);
  TORCH_CUDABLAS_CHECK(cublasSetWorkspace(handle, memory, bytes));
  return {handle, memory, major};
}

}  // namespace

cublasHandle_t current_handle(cudaStream_t stream) { return bind(stream).handle; }

LtBinding current_lt_binding(cudaStream_t stream) {
  const Bound bound = bind(stream);
  const LtWorkspaceSize lt = lt_workspace_bytes(bound.major);
  // Unified: the Lt size is capped at the cuBLAS workspace's, which a call on the same
  // stream never uses at the same time.
  void* memory = lt.unified ? bound.workspace : workspace({bound.handle, stream, WorkspaceUse::kCublasLt}, lt.bytes);
  return {reinterpret_cast<cublasLtHandle_t>(bound.handle), memory, lt.bytes};
}

}  // namespace torch_cuda::blas
