#include "third_device/torch_cuda/torch_cuda/csrc/aten/blas/cublas_handle.h"

#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/blas/cublas_check.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_check.h"

namespace torch_cuda::blas {
namespace {

struct Pool {
  std::mutex mutex;
  std::unordered_map<int, std::vector<cublasHandle_t>> idle;  // by device
  std::map<std::pair<cublasHandle_t, cudaStream_t>, void*> workspaces;
  std::size_t created = 0;
  WorkspaceAllocator allocate_workspace = nullptr;  // nullptr: cudaMalloc
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

std::size_t workspace_bytes(int device) {
  static const std::optional<std::size_t> configured = parse_workspace_config(std::getenv("CUBLAS_WORKSPACE_CONFIG"));
  if (configured) return *configured;
  int major = 0;
  TORCH_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  return default_workspace_bytes(major);
}

// The (handle, stream) workspace, allocated on first use and kept for the process (a
// later stream at the same address reuses it, which is safe once the old one is gone).
void* workspace(cublasHandle_t handle, cudaStream_t stream, std::size_t bytes) {
  Pool& p = pool();
  {
    std::lock_guard<std::mutex> lock(p.mutex);
    auto found = p.workspaces.find({handle, stream});
    if (found != p.workspaces.end()) return found->second;
  }
  WorkspaceAllocator allocate = nullptr;
  {
    std::lock_guard<std::mutex> lock(p.mutex);
    allocate = p.allocate_workspace;
  }
  void* memory = nullptr;
  if (bytes > 0 && allocate != nullptr) {
    memory = allocate(bytes);
  } else if (bytes > 0) {
    TORCH_CUDA_CHECK(cudaMalloc(&memory, bytes));
  }
  std::lock_guard<std::mutex> lock(p.mutex);
  p.workspaces.emplace(std::make_pair(handle, stream), memory);
  return memory;
}

}  // namespace

void set_workspace_allocator(WorkspaceAllocator allocate) {
  Pool& p = pool();
  std::lock_guard<std::mutex> lock(p.mutex);
  p.allocate_workspace = allocate;
}

std::optional<std::size_t> parse_workspace_config(const char* config) {
  if (config == nullptr || *config == '\0') return std::nullopt;
  // ":SIZE:COUNT" repeated: SIZE KiB buffers, COUNT of them; the total is the sum.
  std::vector<unsigned long long> numbers;
  const std::string text(config);
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (text[pos] != ':') return std::nullopt;
    ++pos;
    const std::size_t start = pos;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') ++pos;
    if (pos == start || pos - start > 12) return std::nullopt;
    numbers.push_back(std::stoull(text.substr(start, pos - start)));
  }
  if (numbers.empty() || numbers.size() % 2 != 0) return std::nullopt;
  std::size_t total = 0;
  for (std::size_t i = 0; i < numbers.size(); i += 2) total += numbers[i] * 1024 * numbers[i + 1];
  return total;
}

std::size_t default_workspace_bytes(int major) {
  return major >= 9 ? std::size_t{32} << 20 : std::size_t{4096} * 1024 * 2 + std::size_t{16} * 1024 * 8;
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
  const std::size_t bytes = workspace_bytes(device);
  TORCH_CUDABLAS_CHECK(cublasSetWorkspace(handle, workspace(handle, stream, bytes), bytes));
  return handle;
}

}  // namespace torch_cuda::blas
