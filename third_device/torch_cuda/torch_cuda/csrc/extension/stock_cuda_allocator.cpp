// c10::cuda::CUDACachingAllocator::allocator, stock's handle on the CUDA caching allocator,
// defined by the real variant's _CUDAC over torch_cuda's allocator (torch_core's
// DeviceCachingAllocator for the CUDA key): the inline code of stock's c10/cuda headers in
// an extension (CUDAGuard's recordDataPtrOnStream, CUDACachingAllocator::raw_alloc,
// get()->...) reaches torch_cuda's allocator, the one tensors come from. What that
// allocator does not have (CUDA-graph pools driven from C++, IPC handles, history
// recording, checkpoints) is refused with an error naming torch's Python API for it.
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/util/Exception.h>
#include <cuda_runtime_api.h>

#include <mutex>
#include <unordered_map>

#include "torch_core/csrc/device/backend.h"
#include "torch_core/csrc/device/device_allocator.h"

namespace c10::cuda::CUDACachingAllocator {

namespace {

[[noreturn]] void unsupported(const char* what, const char* instead) {
  TORCH_CHECK(false, "torch_cuda's caching allocator does not support ", what, " from C++; ", instead);
}

class TorchCudaAllocator final : public CUDAAllocator {
 public:
  DataPtr allocate(size_t bytes) override { return base().allocate(bytes); }
  DeleterFnPtr raw_deleter() const override { return base().raw_deleter(); }
  void copy_data(void* dest, const void* src, size_t count) const override { base().copy_data(dest, src, count); }
  bool initialized() override { return base().initialized(); }
  void emptyCache(MempoolId_t mempool_id) override { base().emptyCache(mempool_id); }
  void recordStream(const DataPtr& ptr, CUDAStream stream) override { base().recordStream(ptr, stream.unwrap()); }
  DeviceStats getDeviceStats(c10::DeviceIndex device) override { return base().getDeviceStats(device); }
  void resetAccumulatedStats(c10::DeviceIndex device) override { base().resetAccumulatedStats(device); }
  void resetPeakStats(c10::DeviceIndex device) override { base().resetPeakStats(device); }
  std::pair<size_t, size_t> getMemoryInfo(c10::DeviceIndex device) override { return base().getMemoryInfo(device); }

  // As stock's: raw memory on the current device for the current (or the given) stream,
  // owned by the allocator until raw_delete.
  void* raw_alloc(size_t nbytes) override { return raw_alloc_with_stream(nbytes, getCurrentCUDAStream().stream()); }
  void* raw_alloc_with_stream(size_t nbytes, cudaStream_t stream) override {
    if (nbytes == 0) return nullptr;
    DataPtr memory = base().allocate_on(c10::cuda::current_device(), nbytes, stream);
    void* ptr = memory.get();
    const std::lock_guard<std::mutex> lock(mutex_);
    raw_.emplace(ptr, std::move(memory));
    return ptr;
  }
  void raw_delete(void* ptr) override {
    if (ptr == nullptr) return;
    DataPtr memory;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      const auto found = raw_.find(ptr);
      TORCH_CHECK(found != raw_.end(), "raw_delete: ", ptr, " was not allocated by raw_alloc");
      memory = std::move(found->second);
      raw_.erase(found);
    }
  }

  void init(int /*device_count*/) override {}
  void setMemoryFraction(double fraction, c10::DeviceIndex device) override {
    base().set_memory_fraction(device, fraction);
  }
  double getMemoryFraction(c10::DeviceIndex) override {
    unsupported("getMemoryFraction", "torch.cuda.get_per_process_memory_fraction() answers it");
  }
  std::vector<StreamSegmentSize> getExpandableSegmentSizes(c10::DeviceIndex) override { return {}; }
  void enable(bool value) override {
    TORCH_CHECK(value, "torch_cuda's caching allocator cannot be disabled (PYTORCH_NO_CUDA_MEMORY_CACHING)");
  }
  bool isEnabled() const override { return true; }
  void cacheInfo(c10::DeviceIndex, size_t*) override {
    unsupported("cacheInfo", "torch.cuda.memory_stats() has the cache's figures");
  }
  void* getBaseAllocation(void*, size_t*) override {
    unsupported("getBaseAllocation", "CUDA IPC of tensors goes through torch.multiprocessing");
  }
  SnapshotInfo snapshot(MempoolId_t, bool) override {
    unsupported("snapshot", "torch.cuda.memory_snapshot() returns it");
  }
  void beginAllocateToPool(c10::DeviceIndex, MempoolId_t, std::function<bool(cudaStream_t)>) override {
    unsupported("private pools", "capture with torch.cuda.graph / torch.cuda.MemPool");
  }
  void endAllocateToPool(c10::DeviceIndex, MempoolId_t) override {
    unsupported("private pools", "capture with torch.cuda.graph / torch.cuda.MemPool");
  }
  void releasePool(c10::DeviceIndex, MempoolId_t) override {
    unsupported("private pools", "capture with torch.cuda.graph / torch.cuda.MemPool");
  }
  ShareableHandle shareIpcHandle(void*) override {
    unsupported("IPC handles", "share CUDA tensors through torch.multiprocessing");
  }
  std::shared_ptr<void> getIpcDevPtr(std::string) override {
    unsupported("IPC handles", "share CUDA tensors through torch.multiprocessing");
  }
  void recordHistory(bool, CreateContextFn, size_t, RecordContext, bool, const std::vector<std::string>&) override {
    unsupported("recordHistory", "use torch.cuda.memory._record_memory_history()");
  }
  void attachOutOfMemoryObserver(OutOfMemoryObserver) override {
    unsupported("out-of-memory observers", "torch.cuda.memory._record_memory_history() records OOMs");
  }
  void attachOomRejectionObserver(OomRejectionObserver) override {
    unsupported("out-of-memory observers", "torch.cuda.memory._record_memory_history() records OOMs");
  }
  void attachAllocatorTraceTracker(AllocatorTraceTracker) override {
    unsupported("trace trackers", "torch.cuda.memory._record_memory_history() records the trace");
  }
  void enablePeerAccess(c10::DeviceIndex dev, c10::DeviceIndex dev_to_access) override {
    const cudaError_t status = cudaDeviceEnablePeerAccess(dev_to_access, 0);
    if (status == cudaErrorPeerAccessAlreadyEnabled) {
      (void)cudaGetLastError();
      return;
    }
    TORCH_CHECK(status == cudaSuccess, "enablePeerAccess(", static_cast<int>(dev), ", ",
                static_cast<int>(dev_to_access), "): ", cudaGetErrorString(status));
  }
  cudaError_t memcpyAsync(void* dst, int dstDevice, const void* src, int srcDevice, size_t count,
                          cudaStream_t stream, bool p2p_enabled) override {
    if (p2p_enabled || dstDevice == srcDevice) {
      return cudaMemcpyAsync(dst, src, count, cudaMemcpyDeviceToDevice, stream);
    }
    return cudaMemcpyPeerAsync(dst, dstDevice, src, srcDevice, count, stream);
  }
  std::shared_ptr<AllocatorState> getCheckpointState(c10::DeviceIndex, MempoolId_t) override {
    unsupported("checkpoint states", "they serve torch.compile's CUDA-graph trees, which need stock CUDA torch");
  }
  CheckpointDelta setCheckpointPoolState(c10::DeviceIndex, std::shared_ptr<AllocatorState>) override {
    unsupported("checkpoint states", "they serve torch.compile's CUDA-graph trees, which need stock CUDA torch");
  }
  std::string name() override { return "torch_cuda"; }

 private:
  static torch_core::DeviceCachingAllocator& base() {
    return torch_core::Backend::get(c10::DeviceType::CUDA).allocator();
  }

  std::mutex mutex_;
  std::unordered_map<void*, DataPtr> raw_;
};

TorchCudaAllocator torch_cuda_allocator;

}  // namespace

std::atomic<CUDAAllocator*> allocator{&torch_cuda_allocator};

}  // namespace c10::cuda::CUDACachingAllocator
