// normal_ and uniform_ as host loops over Philox4x32-10 streams.
//
// A call reserves draws_per_element * numel 32-bit numbers from the generator (one
// subsequence, offset advanced past them), then fills the tensor on a stream worker.
#include <cmath>
#include <cstring>
#include <mutex>

#include <ATen/core/PhiloxRNGEngine.h>
#include <c10/core/DeviceGuard.h>

#include "torch_core/aten/host_loop_kernels.h"
#include "torch_core/aten/kernel_loop.h"
#include "torch_core/aten/tensor_loop.h"
#include "torch_core/device/philox_generator.h"

namespace torch_core {

namespace {

// A uniform number in (0, 1]: 24 bits for float, 53 (two draws) for double.
template <typename T>
T uniform_open_closed(at::philox_engine& engine) {
  if constexpr (sizeof(T) == sizeof(float)) {
    return static_cast<T>((engine() >> 8) + 1) * static_cast<T>(1.0 / 16777216.0);
  } else {
    const uint64_t high = engine();
    const uint64_t bits = ((high << 32) | engine()) >> 11;
    return static_cast<T>(bits + 1) * static_cast<T>(1.0 / 9007199254740992.0);
  }
}

template <typename T>
constexpr uint64_t draws_per_uniform() {
  return sizeof(T) == sizeof(float) ? 1 : 2;
}

bool covered(const Backend& backend, const at::Tensor& self) {
  return self.device().type() == backend.device_type() && self.layout() == c10::kStrided &&
         self.dim() <= loop::kMaxDims && (self.scalar_type() == c10::kFloat || self.scalar_type() == c10::kDouble);
}

PhiloxInputs reserve(Backend& backend, const at::Tensor& self, const std::optional<at::Generator>& generator,
                     uint64_t draws) {
  PhiloxGenerator* gen =
      philox_generator_or_default(generator, backend.default_generator(self.device().index()), backend.device_type());
  std::lock_guard<std::mutex> lock(gen->mutex_);
  return gen->philox_inputs(draws);
}

// Reserves `draws_per_element` uniforms of T per element, then queues the fill: each
// element is `transform(engine)`.
template <typename T, typename Transform>
void fill_random(Backend& backend, HostLaunch launch, at::Tensor& self, const std::optional<at::Generator>& generator,
                 uint64_t uniforms_per_element, Transform transform) {
  const auto draws = static_cast<uint64_t>(self.numel()) * uniforms_per_element * draws_per_uniform<T>();
  const PhiloxInputs inputs = reserve(backend, self, generator, draws);
  const auto elements = make_loop<1>(self.sizes(), {&self});
  launch(backend.streams().current_handle(self.device().index()), [elements, inputs, transform] {
    // The offset counts 32-bit draws; the engine skips whole 128-bit outputs.
    at::philox_engine engine(inputs.seed, /*subsequence=*/0, inputs.offset / 4);
    loop::for_each(elements, [&](std::array<char*, 1>& ptrs) {
      const T value = transform(engine);
      std::memcpy(ptrs[0], &value, sizeof(T));
    });
  });
}

}  // namespace

bool host_normal_(Backend& backend, HostLaunch launch, at::Tensor& self, double mean, double std,
                  const std::optional<at::Generator>& generator) {
  TORCH_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  if (!covered(backend, self)) return false;
  if (self.numel() == 0) return true;
  const c10::DeviceGuard guard(self.device());
  // Box-Muller: two uniforms per element.
  if (self.scalar_type() == c10::kFloat) {
    fill_random<float>(backend, launch, self, generator, 2, [mean, std](at::philox_engine& engine) {
      const double u1 = uniform_open_closed<float>(engine);
      const double u2 = uniform_open_closed<float>(engine);
      return static_cast<float>(mean + std * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2));
    });
  } else {
    fill_random<double>(backend, launch, self, generator, 2, [mean, std](at::philox_engine& engine) {
      const double u1 = uniform_open_closed<double>(engine);
      const double u2 = uniform_open_closed<double>(engine);
      return mean + std * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
    });
  }
  return true;
}

bool host_uniform_(Backend& backend, HostLaunch launch, at::Tensor& self, double from, double to,
                   const std::optional<at::Generator>& generator) {
  TORCH_CHECK(from <= to, "uniform_ expects to return a [from, to) range, but found from=", from, " > to=", to);
  if (!covered(backend, self)) return false;
  if (self.numel() == 0) return true;
  const c10::DeviceGuard guard(self.device());
  // 1 - u maps (0, 1] to [0, 1): values in [from, to).
  if (self.scalar_type() == c10::kFloat) {
    fill_random<float>(backend, launch, self, generator, 1, [from, to](at::philox_engine& engine) {
      const float value = static_cast<float>(from + (to - from) * (1.0 - uniform_open_closed<float>(engine)));
      return value < static_cast<float>(to) ? value : static_cast<float>(from);
    });
  } else {
    fill_random<double>(backend, launch, self, generator, 1, [from, to](at::philox_engine& engine) {
      return from + (to - from) * (1.0 - uniform_open_closed<double>(engine));
    });
  }
  return true;
}

}  // namespace torch_core
