// The CUDA entries of torch's stable C ABI (torch/csrc/inductor/aoti_torch/c/shim.h and
// torch/csrc/stable/c/shim.h under USE_CUDA) that stock's libtorch_cuda exports and the CPU
// wheel's libtorch_cpu does not: device guards, stream guards, the current stream, pool
// streams, stream synchronisation. Exported by both variants' _CUDAC over the backend's
// device guard and stream registry (streams cross as the runtime's handle: a cudaStream_t
// in the real variant), so an extension built against the stable ABI alone loads on the
// CPU torch with torch_cuda. Errors become AOTI_TORCH_FAILURE with the message kept where
// the stable ABI's callers read it, as in stock's shims.
#include <c10/core/Device.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/StreamGuard.h>
#include <torch/csrc/inductor/aoti_torch/c/shim.h>
#include <torch/csrc/inductor/aoti_torch/utils.h>
#include <torch/csrc/stable/c/shim.h>

#include "torch_core/csrc/device/backend.h"

struct CUDAGuardOpaque {
  c10::DeviceGuard guard;
};

struct CUDAStreamGuardOpaque {
  c10::StreamGuard guard;
};

namespace {

// The registry reads a negative device index as the current device, as stock's shims do.
torch_core::StreamRegistry& streams() {
  auto& backend = torch_core::Backend::get(c10::DeviceType::CUDA);
  backend.initialize();
  return backend.streams();
}

c10::DeviceIndex device_or_current(int32_t device_index) {
  return device_index < 0 ? torch_core::Backend::get(c10::DeviceType::CUDA).current_device()
                          : static_cast<c10::DeviceIndex>(device_index);
}

c10::Device cuda(int32_t device_index) { return c10::Device(c10::DeviceType::CUDA, device_or_current(device_index)); }

// The c10::Stream behind a runtime handle (a pool, default or external stream).
c10::Stream stream_of(void* stream, int32_t device_index) {
  return streams().external_stream(static_cast<c10::DeviceIndex>(device_index), stream);
}

}  // namespace

AOTITorchError aoti_torch_create_cuda_guard(int32_t device_index, CUDAGuardHandle* ret_guard) {
  AOTI_TORCH_CONVERT_EXCEPTION_TO_ERROR_CODE(
      { *ret_guard = new CUDAGuardOpaque{c10::DeviceGuard(cuda(device_index))}; });
}

AOTITorchError aoti_torch_delete_cuda_guard(CUDAGuardHandle guard) {
  AOTI_TORCH_CONVERT_EXCEPTION_TO_ERROR_CODE({ delete guard; });
}

AOTITorchError aoti_torch_cuda_guard_set_index(CUDAGuardHandle guard, int32_t device_index) {
  AOTI_TORCH_CONVERT_EXCEPTION_TO_ERROR_CODE({ guard->guard.set_index(device_or_current(device_index)); });
}

AOTITorchError aoti_torch_create_cuda_stream_guard(void* stream, int32_t device_index,
                                                   CUDAStreamGuardHandle* ret_guard) {
  AOTI_TORCH_CONVERT_EXCEPTION_TO_ERROR_CODE(
      { *ret_guard = new CUDAStreamGuardOpaque{c10::StreamGuard(stream_of(stream, device_index))}; });
}

AOTITorchError aoti_torch_delete_cuda_stream_guard(CUDAStreamGuardHandle guard) {
  AOTI_TORCH_CONVERT_EXCEPTION_TO_ERROR_CODE({ delete guard; });
}

AOTITorchError aoti_torch_get_current_cuda_stream(int32_t device_index, void** ret_stream) {
  AOTI_TORCH_CONVERT_EXCEPTION_TO_ERROR_CODE(
      { *ret_stream = streams().current_handle(static_cast<c10::DeviceIndex>(device_index)); });
}

AOTITorchError torch_set_current_cuda_stream(void* stream, int32_t device_index) {
  AOTI_TORCH_CONVERT_EXCEPTION_TO_ERROR_CODE({ streams().exchange_stream(stream_of(stream, device_index)); });
}

AOTITorchError torch_get_cuda_stream_from_pool(bool isHighPriority, int32_t device_index, void** ret_stream) {
  AOTI_TORCH_CONVERT_EXCEPTION_TO_ERROR_CODE({
    const auto device = static_cast<c10::DeviceIndex>(device_index);
    const c10::Stream pooled = streams().pool_stream(device, isHighPriority ? -1 : 0);
    *ret_stream = streams().handle(pooled);
  });
}

AOTITorchError torch_cuda_stream_synchronize(void* stream, int32_t device_index) {
  AOTI_TORCH_CONVERT_EXCEPTION_TO_ERROR_CODE({
    torch_core::Backend::get(c10::DeviceType::CUDA).guard().synchronizeStream(stream_of(stream, device_index));
  });
}
