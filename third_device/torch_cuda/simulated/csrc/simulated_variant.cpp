// variant.h for the simulated build: torch_core's simulated device (SimulatedRuntime,
// host-loop kernels and host engine, queued on stream workers) on the CUDA key, as
// torch_sim has it on PrivateUse1.
#include <cstdint>
#include <memory>
#include <stdexcept>

#include "third_device/torch_cuda/torch_cuda/csrc/framework/variant.h"
#include "toolchains/cuda/build_info/cuda_build_info.h"
#include "torch_core/csrc/simulated/simulated_device.h"

namespace torch_cuda {

namespace {

constexpr c10::DeviceType kDeviceType = c10::DeviceType::CUDA;

// CUDART_VERSION's spelling of the configured CUDA version ("13.5" -> 13050), so the
// simulated build reports the toolkit the real one is built with, without cudart.
long parse_cuda_version(const char* text) {
  long major = 0, minor = 0;
  const char* p = text;
  while (*p >= '0' && *p <= '9') major = major * 10 + (*p++ - '0');
  if (*p == '.') ++p;
  while (*p >= '0' && *p <= '9') minor = minor * 10 + (*p++ - '0');
  return major * 1000 + minor * 10;
}

}  // namespace

namespace variant {

const char* name() { return "simulated"; }

std::unique_ptr<torch_core::DeviceRuntime> make_runtime() {
  return torch_core::simulated_device::make_runtime();
}

void register_kernels() { torch_core::simulated_device::register_host_engine<kDeviceType>(); }

long cudart_version() { return parse_cuda_version(TORCH_CUDA_BUILD_CUDA_VERSION); }

std::uintptr_t current_blas_handle(torch_core::StreamHandle /*stream*/) {
  throw std::runtime_error(
      "torch.cuda.current_blas_handle: the simulated variant of torch_cuda has no cuBLAS (its "
      "GEMMs run the same plans on the host); install the real variant on a GPU machine");
}

std::uintptr_t current_solver_handle(torch_core::StreamHandle /*stream*/) {
  throw std::runtime_error(
      "torch.cuda.current_solver_handle: the simulated variant of torch_cuda has no cuSOLVER (its "
      "solvers run the same plans on the host); install the real variant on a GPU machine");
}

// The host executor holds no workspace.
void clear_blas_workspaces() {}

}  // namespace variant

}  // namespace torch_cuda
