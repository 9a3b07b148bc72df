// variant.h for the simulated build, and its host-loop device kernels (strided copy and
// fill, the torch_sim pattern: torch_core's kernel loop API run on stream workers).
#include "third_device/torch_cuda/simulated/csrc/simulated_variant.h"

#include <array>
#include <atomic>
#include <cstring>
#include <memory>
#include <utility>

#include <ATen/Dispatch.h>
#include <c10/util/Exception.h>

#include "cuda_build_info.h"
#include "third_device/torch_cuda/csrc/framework/cuda_backend.h"
#include "third_device/torch_cuda/csrc/framework/variant.h"
#include "torch_core/aten/kernel_loop.h"
#include "torch_core/aten/tensor_loop.h"
#include "torch_core/runtime/simulated_config.h"

namespace torch_cuda {

namespace {

std::atomic<torch_core::SimulatedRuntime*> the_runtime{nullptr};

using Pattern = std::array<unsigned char, 16>;

bool element_bytes(c10::ScalarType type, const c10::Scalar& value, Pattern& pattern) {
  bool converted = false;
  AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND3(at::kHalf, at::kBFloat16, at::kBool, type, "cuda_sim_fill", [&] {
    const scalar_t element = value.to<scalar_t>();
    static_assert(sizeof(scalar_t) <= sizeof(Pattern), "element wider than the fill pattern");
    std::memcpy(pattern.data(), &element, sizeof(scalar_t));
    converted = true;
  });
  return converted;
}

bool fill_supported(c10::ScalarType type) {
  return c10::isIntegralType(type, /*includeBool=*/true) || c10::isFloatingType(type) ||
         c10::isComplexType(type);
}

class SimulatedKernels final : public torch_core::DeviceKernels {
 public:
  bool copy(const at::Tensor& dst, const at::Tensor& src, torch_core::StreamHandle stream) override {
    if (dst.scalar_type() != src.scalar_type() || dst.dim() > torch_core::loop::kMaxDims) return false;
    const auto loop = torch_core::make_loop<2>(dst.sizes(), {&dst, &src});
    const std::size_t itemsize = dst.element_size();
    simulated::launch(stream, [loop, itemsize] { torch_core::loop::copy_elements(loop, itemsize); });
    return true;
  }

  bool fill(const at::Tensor& self, const c10::Scalar& value, torch_core::StreamHandle stream) override {
    if (!fill_supported(self.scalar_type()) || self.dim() > torch_core::loop::kMaxDims) return false;
    Pattern pattern{};
    if (!element_bytes(self.scalar_type(), value, pattern)) return false;
    const auto loop = torch_core::make_loop<1>(self.sizes(), {&self});
    const std::size_t itemsize = self.element_size();
    simulated::launch(stream,
                      [loop, pattern, itemsize] { torch_core::loop::fill_elements(loop, pattern.data(), itemsize); });
    return true;
  }
};

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
  static SimulatedKernels kernels;
  return &kernels;
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
