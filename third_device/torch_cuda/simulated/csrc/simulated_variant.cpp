// variant.h for the simulated build: torch_core's simulated device (SimulatedRuntime,
// host-loop kernels and host engine, queued on stream workers) on the CUDA key, as
// torch_sim has it on PrivateUse1.
#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <stdexcept>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_version.h"
#include "third_device/torch_cuda/torch_cuda/csrc/framework/variant.h"
#include "toolchains/cuda/build_info/cuda_build_info.h"
#include "torch_core/csrc/simulated/simulated_device.h"

namespace torch_cuda {

namespace {

constexpr c10::DeviceType kDeviceType = c10::DeviceType::CUDA;

// The numbers of a dotted version ("13.5" -> 13, 5, 0), missing ones 0.
std::array<long, 3> version_parts(const char* text) {
  std::array<long, 3> parts{};
  const char* p = text;
  for (long& part : parts) {
    while (*p >= '0' && *p <= '9') part = part * 10 + (*p++ - '0');
    if (*p != '.') break;
    ++p;
  }
  return parts;
}

// CUDART_VERSION's spelling of the configured CUDA version ("13.5" -> 13050), so the
// simulated build reports the toolkit the real one is built with, without cudart.
long parse_cuda_version(const char* text) {
  const std::array<long, 3> parts = version_parts(text);
  return parts[0] * 1000 + parts[1] * 10;
}

}  // namespace

namespace variant {

const char* name() { return "simulated"; }

std::unique_ptr<torch_core::DeviceRuntime> make_runtime() {
  return torch_core::simulated_device::make_runtime();
}

void register_kernels() { torch_core::simulated_device::register_host_engine<kDeviceType>(); }

long cudart_version() { return parse_cuda_version(TORCH_CUDA_BUILD_CUDA_VERSION); }

// The newest of TORCH_CUDA_BUILD_ARCHS ("sm_90,sm_100" -> 10.0); 0.0 for a build without.
std::pair<int, int> compute_capability(int /*device*/) {
  int newest = 0;
  for (const char* p = TORCH_CUDA_BUILD_ARCHS; *p != '\0'; ++p) {
    if (*p < '0' || *p > '9') continue;
    int arch = 0;
    while (*p >= '0' && *p <= '9') arch = arch * 10 + (*p++ - '0');
    newest = std::max(newest, arch);
    if (*p == '\0') break;
  }
  return {newest / 10, newest % 10};
}

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

// The pinned cuDNN's version in CUDNN_VERSION's encoding ("9.27.0" -> 92700): the library the
// host executors stand in for, compiled and run alike.
namespace cudnn {

long compile_version() {
  const std::array<long, 3> parts = version_parts(TORCH_CUDA_BUILD_CUDNN_VERSION);
  return parts[0] * 10000 + parts[1] * 100 + parts[2];
}

long runtime_version() { return compile_version(); }

}  // namespace cudnn

}  // namespace torch_cuda
