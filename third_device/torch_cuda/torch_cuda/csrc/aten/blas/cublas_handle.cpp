#include "third_device/torch_cuda/torch_cuda/csrc/aten/blas/cublas_handle.h"

#include <map>
#include <mutex>
#include <tuple>
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

// cuBLAS's workspace of a (handle, stream), or cuBLASLt's when it is not unified.
enum class WorkspaceUse { kCublas, kCublasLt };
using WorkspaceKey = std::tuple<cublasHandle_t, cudaStream_t, WorkspaceUse>;

struct Pool {
  std::mutex mutex;
  std::unordered_map<int, std::vector<cublasHandle_t>> idle;  // by device
  std::map<WorkspaceKey, Workspace> workspaces;
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

std::size_t created_handle_count() {
  Pool& p = pool();
  std::lock_guard<std::mutex> lock(p.mutex);
  return p.created;
}

namespace {

struct Bound {
  cublasHandle_t handle;
  void* workspace;  // cuBLAS's, for the stream
  int major;        // the device's compute capability
};

Bound bind(cudaStream_t stream) {
  int device = 0;
  TORCH_CUDA_CHECK(cudaGetDevice(&device));
  cublasHandle_t handle = lease_handle(device);
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
