// normal_ and uniform_ on the simulated device: Philox4x32-10 streams drawn from the
// device's generator (torch_core::PhiloxGenerator), on a stream worker.
//
// A call reserves draws_per_element * numel 32-bit numbers from the generator (one
// subsequence, offset advanced past them), so calls in a row draw fresh numbers and
// manual_seed / set_rng_state replay them exactly.
#include <cmath>
#include <cstring>
#include <mutex>

#include <ATen/core/PhiloxRNGEngine.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/normal_ops.h>
#include <ATen/ops/uniform_ops.h>
#include <c10/core/DeviceGuard.h>

#include "op_helpers.h"
#include "third_device/torch_sim/csrc/aten/sim_kernels.h"
#include "torch_core/aten/tensor_loop.h"
#include "torch_core/device/philox_generator.h"

namespace torch_sim {

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

torch_core::PhiloxInputs reserve(const at::Tensor& self, const std::optional<at::Generator>& generator,
                                 uint64_t draws) {
  torch_core::Backend& backend = register_backend();
  torch_core::PhiloxGenerator* gen = torch_core::philox_generator_or_default(
      generator, backend.default_generator(self.device().index()), c10::DeviceType::PrivateUse1);
  std::lock_guard<std::mutex> lock(gen->mutex_);
  return gen->philox_inputs(draws);
}

template <typename T, typename Transform>
void launch_random(at::Tensor& self, const torch_core::PhiloxInputs& inputs, Transform transform) {
  const auto loop = torch_core::make_loop<1>(self.sizes(), {&self});
  launch(detail::stream_of(self), [loop, inputs, transform] {
    // The offset counts 32-bit draws; the engine skips whole 128-bit outputs.
    at::philox_engine engine(inputs.seed, /*subsequence=*/0, inputs.offset / 4);
    torch_core::loop::for_each(loop, [&](std::array<char*, 1>& ptrs) {
      const T value = transform(engine);
      std::memcpy(ptrs[0], &value, sizeof(T));
    });
  });
}

bool random_native(const at::Tensor& self) {
  return detail::on_sim(self) && detail::loopable(self) &&
         (self.scalar_type() == c10::kFloat || self.scalar_type() == c10::kDouble);
}

}  // namespace

at::Tensor& normal_(at::Tensor& self, double mean, double std, std::optional<at::Generator> generator) {
  TORCH_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  if (!random_native(self)) return detail::fall_back<at::_ops::normal_>(self, mean, std, generator);
  if (self.numel() == 0) return self;
  const c10::DeviceGuard guard(self.device());
  const auto numel = static_cast<uint64_t>(self.numel());
  // Box-Muller: two uniforms per element.
  if (self.scalar_type() == c10::kFloat) {
    const auto inputs = reserve(self, generator, numel * 2 * draws_per_uniform<float>());
    launch_random<float>(self, inputs, [mean, std](at::philox_engine& engine) {
      const double u1 = uniform_open_closed<float>(engine);
      const double u2 = uniform_open_closed<float>(engine);
      return static_cast<float>(mean + std * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2));
    });
  } else {
    const auto inputs = reserve(self, generator, numel * 2 * draws_per_uniform<double>());
    launch_random<double>(self, inputs, [mean, std](at::philox_engine& engine) {
      const double u1 = uniform_open_closed<double>(engine);
      const double u2 = uniform_open_closed<double>(engine);
      return mean + std * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
    });
  }
  return self;
}

at::Tensor& uniform_(at::Tensor& self, double from, double to, std::optional<at::Generator> generator) {
  TORCH_CHECK(from <= to, "uniform_ expects to return a [from, to) range, but found from=", from, " > to=", to);
  if (!random_native(self)) return detail::fall_back<at::_ops::uniform_>(self, from, to, generator);
  if (self.numel() == 0) return self;
  const c10::DeviceGuard guard(self.device());
  const auto numel = static_cast<uint64_t>(self.numel());
  // 1 - u maps (0, 1] to [0, 1): values in [from, to).
  if (self.scalar_type() == c10::kFloat) {
    const auto inputs = reserve(self, generator, numel * draws_per_uniform<float>());
    launch_random<float>(self, inputs, [from, to](at::philox_engine& engine) {
      const float value = static_cast<float>(from + (to - from) * (1.0 - uniform_open_closed<float>(engine)));
      return value < static_cast<float>(to) ? value : static_cast<float>(from);
    });
  } else {
    const auto inputs = reserve(self, generator, numel * draws_per_uniform<double>());
    launch_random<double>(self, inputs, [from, to](at::philox_engine& engine) {
      return from + (to - from) * (1.0 - uniform_open_closed<double>(engine));
    });
  }
  return self;
}

}  // namespace torch_sim
