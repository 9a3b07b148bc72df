#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_device_runtime.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <cstring>
#include <stdexcept>
#include <string>

#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_check.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/cuda_device_checks.h"

namespace torch_cuda {
namespace {

using device_checks::check_device;
using device_checks::DeviceCount;
using device_checks::device_count_query;
using device_checks::DeviceGuard;
using torch_core::CopyKind;
using torch_core::EventHandle;
using torch_core::StreamHandle;

cudaStream_t as_stream(StreamHandle stream) { return static_cast<cudaStream_t>(stream); }
cudaEvent_t as_event(EventHandle event) { return static_cast<cudaEvent_t>(event); }

cudaMemcpyKind as_copy_kind(CopyKind kind) {
  switch (kind) {
    case CopyKind::kHostToDevice:
      return cudaMemcpyHostToDevice;
    case CopyKind::kDeviceToHost:
      return cudaMemcpyDeviceToHost;
    case CopyKind::kDeviceToDevice:
      return cudaMemcpyDeviceToDevice;
  }
  throw std::invalid_argument("unknown torch_core::CopyKind " +
                              std::to_string(static_cast<int>(kind)));
}

// cudaStreamQuery / cudaEventQuery: cudaErrorNotReady means "still running", not a
// failure. It is cleared from the last-error state (as PyTorch does) so that a later
// cudaGetLastError does not report it.
bool is_ready(cudaError_t status, const char* call) {
  if (status == cudaSuccess) return true;
  if (status == cudaErrorNotReady) {
    cudaGetLastError();
    return false;
  }
  throw_cuda_error(status, call, __FILE__, __LINE__);
}

// Out of memory is an answer for allocate(): the caller (a caching allocator) frees its
// cache and retries. The error is not sticky; it is cleared so the retry starts clean.
bool is_out_of_memory(cudaError_t status) {
  if (status != cudaErrorMemoryAllocation) return false;
  cudaGetLastError();
  return true;
}

}  // namespace

// --- Devices ---------------------------------------------------------------------------

int CudaRuntime::device_count() const { return device_count_query().count; }

std::string CudaRuntime::unavailable_reason() const {
  const DeviceCount& query = device_count_query();
  if (query.status == cudaSuccess) {
    return query.count > 0 ? "" : "cudaGetDeviceCount reported no CUDA devices";
  }
  std::string reason =
      std::string(cudaGetErrorName(query.status)) + ": " + cudaGetErrorString(query.status);
  // cudart says "driver version is insufficient" also when there is no driver at all.
  if (query.status == cudaErrorInsufficientDriver) {
    void* driver = dlopen("libcuda.so.1", RTLD_LAZY);
    if (driver == nullptr) {
      reason += " (no NVIDIA driver: libcuda.so.1 not found)";
    } else {
      dlclose(driver);
    }
  }
  return reason;
}

torch_core::DeviceProperties CudaRuntime::properties(int device) const {
  check_device(device, "properties");
  cudaDeviceProp prop{};
  TORCH_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  torch_core::DeviceProperties result;
  result.name = prop.name;
  result.total_memory_bytes = prop.totalGlobalMem;
  result.major = prop.major;
  result.minor = prop.minor;
  result.multiprocessor_count = prop.multiProcessorCount;
  return result;
}

int CudaRuntime::current_device() const {
  if (device_count() == 0) return 0;  // the interface's "0 until set"; cudart would fail
  int device = 0;
  TORCH_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

void CudaRuntime::set_current_device(int device) {
  check_device(device, "set_current_device");
  TORCH_CUDA_CHECK(cudaSetDevice(device));
}

void CudaRuntime::synchronize_device(int device) {
  check_device(device, "synchronize_device");
  DeviceGuard guard(device);
  TORCH_CUDA_CHECK(cudaDeviceSynchronize());
}

// --- Memory ----------------------------------------------------------------------------

void* CudaRuntime::allocate(int device, std::size_t bytes) {
  check_device(device, "allocate");
  DeviceGuard guard(device);
  void* ptr = nullptr;
  // A capture in global or thread-local mode refuses cudaMalloc
  // (cudaErrorStreamCaptureUnsupported), yet a graph's memory is allocated while it is
  // captured. As stock's allocator does, this thread allocates in relaxed mode: the graph
  // gets new addresses, and replays do not allocate again.
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  TORCH_CUDA_CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
  const cudaError_t status = cudaMalloc(&ptr, bytes);
  TORCH_CUDA_CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
  if (is_out_of_memory(status)) return nullptr;
  if (status != cudaSuccess) throw_cuda_error(status, "cudaMalloc(&ptr, bytes)", __FILE__, __LINE__);
  return ptr;
}

void CudaRuntime::free(int device, void* ptr) {
  check_device(device, "free");
  if (ptr == nullptr) return;
  DeviceGuard guard(device);
  TORCH_CUDA_CHECK(cudaFree(ptr));
}

torch_core::MemoryInfo CudaRuntime::memory_info(int device) const {
  check_device(device, "memory_info");
  DeviceGuard guard(device);
  torch_core::MemoryInfo info;
  TORCH_CUDA_CHECK(cudaMemGetInfo(&info.free_bytes, &info.total_bytes));
  return info;
}

void* CudaRuntime::allocate_host_pinned(std::size_t bytes) {
  void* ptr = nullptr;
  // With unified addressing (every supported GPU), cudaHostAllocDefault memory is usable
  // from every device, so no device needs to be chosen here.
  const cudaError_t status = cudaHostAlloc(&ptr, bytes, cudaHostAllocDefault);
  if (is_out_of_memory(status)) return nullptr;
  if (status != cudaSuccess) {
    throw_cuda_error(status, "cudaHostAlloc(&ptr, bytes, cudaHostAllocDefault)", __FILE__, __LINE__);
  }
  return ptr;
}

void CudaRuntime::free_host_pinned(void* ptr) {
  if (ptr == nullptr) return;
  TORCH_CUDA_CHECK(cudaFreeHost(ptr));
}

void CudaRuntime::memset_async(void* dst, int value, std::size_t bytes, StreamHandle stream) {
  TORCH_CUDA_CHECK(cudaMemsetAsync(dst, value, bytes, as_stream(stream)));
}

void CudaRuntime::memcpy_async(void* dst, const void* src, std::size_t bytes, CopyKind kind,
                               StreamHandle stream) {
  TORCH_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, as_copy_kind(kind), as_stream(stream)));
}

void CudaRuntime::memcpy(void* dst, const void* src, std::size_t bytes, CopyKind kind) {
  TORCH_CUDA_CHECK(cudaMemcpy(dst, src, bytes, as_copy_kind(kind)));
}

// --- Streams ---------------------------------------------------------------------------

StreamHandle CudaRuntime::default_stream(int device) {
  check_device(device, "default_stream");
  return cudaStreamLegacy;  // why not 0: see the header
}

StreamHandle CudaRuntime::create_stream(int device, int priority) {
  check_device(device, "create_stream");
  DeviceGuard guard(device);
  cudaStream_t stream = nullptr;
  // cudart clamps a priority outside the device's range, as the interface promises.
  TORCH_CUDA_CHECK(cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, priority));
  return stream;
}

void CudaRuntime::destroy_stream(StreamHandle stream) {
  const cudaStream_t handle = as_stream(stream);
  if (handle == nullptr || handle == cudaStreamLegacy || handle == cudaStreamPerThread) {
    throw torch_core::RuntimeError(
        "destroy_stream: a default stream (0, cudaStreamLegacy or cudaStreamPerThread) "
        "lives as long as the process and cannot be destroyed");
  }
  TORCH_CUDA_CHECK(cudaStreamDestroy(handle));
}

torch_core::StreamPriorityRange CudaRuntime::stream_priority_range() const {
  torch_core::StreamPriorityRange range;
  if (device_count() == 0) return range;  // {0, 0}: one priority, nothing to choose
  // Of the current device; every device of a machine reports the same range.
  TORCH_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&range.least, &range.greatest));
  return range;
}

bool CudaRuntime::query_stream(StreamHandle stream) {
  return is_ready(cudaStreamQuery(as_stream(stream)), "cudaStreamQuery(stream)");
}

void CudaRuntime::synchronize_stream(StreamHandle stream) {
  TORCH_CUDA_CHECK(cudaStreamSynchronize(as_stream(stream)));
}

void CudaRuntime::launch_host_func(StreamHandle stream, void (*fn)(void*), void* data) {
  TORCH_CUDA_CHECK(cudaLaunchHostFunc(as_stream(stream), fn, data));
}

// --- Events ----------------------------------------------------------------------------

EventHandle CudaRuntime::create_event(int device, bool enable_timing) {
  check_device(device, "create_event");
  DeviceGuard guard(device);
  cudaEvent_t event = nullptr;
  // Timing costs a timestamp on every record; events used only for ordering skip it.
  const unsigned int flags = enable_timing ? cudaEventDefault : cudaEventDisableTiming;
  TORCH_CUDA_CHECK(cudaEventCreateWithFlags(&event, flags));
  return event;
}

void CudaRuntime::destroy_event(EventHandle event) {
  TORCH_CUDA_CHECK(cudaEventDestroy(as_event(event)));
}

void CudaRuntime::record_event(EventHandle event, StreamHandle stream) {
  TORCH_CUDA_CHECK(cudaEventRecord(as_event(event), as_stream(stream)));
}

bool CudaRuntime::query_event(EventHandle event) {
  return is_ready(cudaEventQuery(as_event(event)), "cudaEventQuery(event)");
}

void CudaRuntime::synchronize_event(EventHandle event) {
  TORCH_CUDA_CHECK(cudaEventSynchronize(as_event(event)));
}

void CudaRuntime::stream_wait_event(StreamHandle stream, EventHandle event) {
  TORCH_CUDA_CHECK(cudaStreamWaitEvent(as_stream(stream), as_event(event), 0));
}

float CudaRuntime::elapsed_ms(EventHandle start, EventHandle end) {
  float ms = 0.0f;
  TORCH_CUDA_CHECK(cudaEventElapsedTime(&ms, as_event(start), as_event(end)));
  return ms;
}

// --- Interprocess sharing ---------------------------------------------------------------

namespace {

template <typename Handle>
Handle handle_from_bytes(const std::string& bytes, const char* call) {
  static_assert(sizeof(Handle) == torch_core::DeviceRuntime::kIpcHandleBytes, "CUDA IPC handles are 64 bytes");
  if (bytes.size() != sizeof(Handle)) {
    throw torch_core::RuntimeError(std::string(call) + ": invalid CUDA IPC handle of " + std::to_string(bytes.size()) +
                                   " bytes (expected " + std::to_string(sizeof(Handle)) + ")");
  }
  Handle handle;
  std::memcpy(&handle, bytes.data(), sizeof(Handle));
  return handle;
}

template <typename Handle>
std::string bytes_of(const Handle& handle) {
  return std::string(reinterpret_cast<const char*>(&handle), sizeof(Handle));
}

}  // namespace

std::string CudaRuntime::ipc_memory_handle(int device, void* base) {
  check_device(device, "ipc_memory_handle");
  DeviceGuard guard(device);
  cudaIpcMemHandle_t handle;
  TORCH_CUDA_CHECK(cudaIpcGetMemHandle(&handle, base));
  return bytes_of(handle);
}

void* CudaRuntime::ipc_open_memory(int device, const std::string& handle) {
  check_device(device, "ipc_open_memory");
  const auto mem_handle = handle_from_bytes<cudaIpcMemHandle_t>(handle, "ipc_open_memory");
  DeviceGuard guard(device);
  void* ptr = nullptr;
  // Lazy peer access: the allocation may live on another device than `device`.
  TORCH_CUDA_CHECK(cudaIpcOpenMemHandle(&ptr, mem_handle, cudaIpcMemLazyEnablePeerAccess));
  return ptr;
}

void CudaRuntime::ipc_close_memory(int device, void* ptr) {
  check_device(device, "ipc_close_memory");
  DeviceGuard guard(device);
  TORCH_CUDA_CHECK(cudaIpcCloseMemHandle(ptr));
}

EventHandle CudaRuntime::create_ipc_event(int device) {
  check_device(device, "create_ipc_event");
  DeviceGuard guard(device);
  cudaEvent_t event = nullptr;
  // CUDA requires interprocess events to have timing disabled.
  TORCH_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming | cudaEventInterprocess));
  return event;
}

std::string CudaRuntime::ipc_event_handle(EventHandle event) {
  cudaIpcEventHandle_t handle;
  TORCH_CUDA_CHECK(cudaIpcGetEventHandle(&handle, as_event(event)));
  return bytes_of(handle);
}

EventHandle CudaRuntime::ipc_open_event(int device, const std::string& handle) {
  check_device(device, "ipc_open_event");
  const auto event_handle = handle_from_bytes<cudaIpcEventHandle_t>(handle, "ipc_open_event");
  DeviceGuard guard(device);
  cudaEvent_t event = nullptr;
  TORCH_CUDA_CHECK(cudaIpcOpenEventHandle(&event, event_handle));
  return event;
}

}  // namespace torch_cuda
