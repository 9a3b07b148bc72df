// The real variant: torch_cuda over cudart (CudaRuntime). Device kernels for the generic
// copy/fill come with csrc/aten's kernel-loop work; until then they stage through the host.
#include <cuda_runtime_api.h>

#include <memory>

#include "third_device/torch_cuda/csrc/aten/engine/cuda_engine.h"
#include "third_device/torch_cuda/csrc/framework/cuda_device_runtime.h"
#include "third_device/torch_cuda/csrc/framework/variant.h"

namespace torch_cuda::variant {

const char* name() { return "cudart"; }

std::unique_ptr<torch_core::DeviceRuntime> make_runtime() { return std::make_unique<CudaRuntime>(); }

torch_core::DeviceKernels* device_kernels() { return nullptr; }

void register_kernel_engine() { engine::register_cuda_engine(); }

long cudart_version() { return CUDART_VERSION; }

}  // namespace torch_cuda::variant
