// Library handles (cuBLAS's, cuSOLVER's) one per thread and device, as ATen's
// DeviceThreadHandlePool: a handle is not thread-safe, and binding a shared one to a stream
// would race, so each thread leases its own per device; a thread that exits gives its
// handles back for the next thread rather than destroying them. A pool is never destroyed:
// destroying handles at process exit races the CUDA driver's own teardown (ATen leaks them
// too). Library-free, so it is tested without a GPU.
#pragma once

#include <cstddef>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace torch_cuda {

// One pool per Handle type: the calling thread's leases live in a thread_local of the type.
template <typename Handle>
class HandlePool {
 public:
  using Create = Handle (*)();

  // The process-wide pool of Handle, which makes a handle with `create` (for the current
  // device) when no idle one is left. Leaked on purpose (see above); the first call's
  // `create` is the pool's.
  static HandlePool& get(Create create) {
    static HandlePool* const pool = new HandlePool(create);
    return *pool;
  }

  // The calling thread's handle for `device`: the one it leased before, else an idle one,
  // else a new one (create() may throw; nothing is leased then).
  Handle lease(int device) {
    thread_local Lease lease{this, {}};
    const auto found = lease.handles.find(device);
    if (found != lease.handles.end()) return found->second;
    Handle handle{};
    bool reused = false;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      auto& idle = idle_[device];
      if (!idle.empty()) {
        handle = idle.back();
        idle.pop_back();
        reused = true;
      }
    }
    if (!reused) {
      handle = create_();
      const std::lock_guard<std::mutex> lock(mutex_);
      ++created_;
    }
    lease.handles.emplace(device, handle);
    return handle;
  }

  // Handles made so far, across threads and devices.
  std::size_t created() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return created_;
  }

 private:
  explicit HandlePool(Create create) : create_(create) {}

  // A thread's handles by device, back to the pool's idle ones at thread exit.
  struct Lease {
    HandlePool* pool;
    std::unordered_map<int, Handle> handles;
    ~Lease() {
      const std::lock_guard<std::mutex> lock(pool->mutex_);
      for (const auto& [device, handle] : handles) pool->idle_[device].push_back(handle);
    }
  };

  const Create create_;
  mutable std::mutex mutex_;
  std::unordered_map<int, std::vector<Handle>> idle_;
  std::size_t created_ = 0;
};

}  // namespace torch_cuda
