#include "third_device/torch_cuda/torch_cuda/csrc/aten/blas/cublas_handle.h"

#include <map>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/blas/cublas_check.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/blas/workspace_size.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_check.h"

namespace torch_cuda::blas {
namespace {

struct Workspace {
  void* memory = nullptr;
  std::size_t bytes = 0;
  WorkspaceAllocator from{};  // null functions: cudaMalloc's
};

struct Pool {
  std::mutex mutex;
  std::unordered_map<int, std::vector<cublasHandle_t>> idle;  // by device
  std::map<std::pair<cublasHandle_t, cudaStream_t>, Workspace> workspaces;
  std::size_t created = 0;
  WorkspaceAllocator allocator{};  // null functions: cudaMalloc and cudaFree
};

// Leaked on purpose (see the header): also keeps it alive for the thread-exit returns.
Pool& pool() {
  static Pool* const instance = new Pool;
  return *instance;
}

// This thread's handles by device, back to the pool at thread exit.
struct Lease {
  std::unordered_map<int, cublasHandle_t> handles;
  ~Lease() {
    Pool& p = pool();
    std::lock_guard<std::mutex> lock(p.mutex);
    for (const auto& [device, handle] : handles) p.idle[device].push_back(handle);
  }
};

cublasHandle_t lease_handle(int device) {
  thread_local Lease lease;
  auto found = lease.handles.find(device);
  if (found != lease.handles.end()) return found->second;
  Pool& p = pool();
  cublasHandle_t handle = nullptr;
  {
    std::lock_guard<std::mutex> lock(p.mutex);
    auto& idle = p.idle[device];
    if (!idle.empty()) {
      handle = idle.back();
      idle.pop_back();
    }
  }
  if (handle == nullptr) {
    TORCH_CUDABLAS_CHECK(cublasCreate(&handle));
    std::lock_guard<std::mutex> lock(p.mutex);
    ++p.created;
  }
  lease.handles.emplace(device, handle);
  return handle;
}

std::size_t chosen_bytes(int device) {
  int major = 0;
  TORCH_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  return workspace_bytes(major);
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

// The (handle, stream) workspace of `bytes`, made on first use and when the size changed,
// and kept until then (a later stream at the same address reuses it, which is safe once
// the old one is gone).
void* workspace(cublasHandle_t handle, cudaStream_t stream, std::size_t bytes) {
  Pool& p = pool();
  Workspace stale;
  WorkspaceAllocator allocator{};
  {
    std::lock_guard<std::mutex> lock(p.mutex);
    const auto found = p.workspaces.find({handle, stream});
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
  p.workspaces.emplace(std::make_pair(handle, stream), made);
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
  std::map<std::pair<cublasHandle_t, cudaStream_t>, Workspace> taken;
  {
    std::lock_guard<std::mutex> lock(p.mutex);
    taken.swap(p.workspaces);
  }
  for (const auto& entry : taken) release(entry.second);
}

std::size_t created_handle_count() {
  Pool& p = pool();
  std::lock_guard<std::mutex> lock(p.mutex);
  return p.created;
}

cublasHandle_t current_handle(cudaStream_t stream) {
  int device = 0;
  TORCH_CUDA_CHECK(cudaGetDevice(&device));
  cublasHandle_t handle = lease_handle(device);
  TORCH_CUDABLAS_CHECK(cublasSetStream(handle, stream));
  const std::size_t bytes = chosen_bytes(device);
  TORCH_CUDABLAS_CHECK(cublasSetWorkspace(handle, workspace(handle, stream, bytes), bytes));
  return handle;
}

}  // namespace torch_cuda::blas
