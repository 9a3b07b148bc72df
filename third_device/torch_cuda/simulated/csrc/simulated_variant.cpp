// variant.h for the simulated build: torch_core's SimulatedRuntime and its host-loop
// device kernels (strided copy and fill, queued on stream workers), as torch_sim has.
#include "third_device/torch_cuda/simulated/csrc/simulated_variant.h"

#include <atomic>
#include <memory>
#include <utility>

#include <c10/util/Exception.h>

#include "cuda_build_info.h"
#include "third_device/torch_cuda/csrc/framework/cuda_backend.h"
#include "third_device/torch_cuda/csrc/framework/variant.h"
#include "torch_core/aten/engine/host_engine.h"
#include "torch_core/aten/host_loop_kernels.h"
#include "torch_core/runtime/simulated_config.h"

namespace torch_cuda {

namespace {

std::atomic<torch_core::SimulatedRuntime*> the_runtime{nullptr};

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
  auto runtime = std::make_unique<torch_core::SimulatedRuntime>(torch_core::SimulatedConfig::from_env());
  the_runtime.store(runtime.get());
  return runtime;
}

torch_core::DeviceKernels* device_kernels() {
  // Leaked: registered kernels live for the rest of the process.
  static torch_core::DeviceKernels* const kernels =
      torch_core::make_host_loop_device_kernels(&simulated::launch).release();
  return kernels;
}

void register_kernels() {
  torch_core::engine::register_host_engine(c10::DeviceType::CUDA, &simulated::launch);
}

long cudart_version() { return parse_cuda_version(TORCH_CUDA_BUILD_CUDA_VERSION); }

}  // namespace variant

namespace simulated {

torch_core::SimulatedRuntime& runtime() {
  backend().initialize();
  return *the_runtime.load();
}

void launch(torch_core::StreamHandle stream, std::function<void()> work) {
  torch_core::SimulatedRuntime& sim = runtime();
  try {
    sim.enqueue(stream, std::move(work));
  } catch (const torch_core::RuntimeError& e) {
    TORCH_CHECK(false, e.what());
  }
}

}  // namespace simulated

}  // namespace torch_cuda
