// normal_ and uniform_ on the simulated CUDA device: Philox4x32-10 streams drawn from the
// device's generator (torch_core::PhiloxGenerator, the CUDA default generators), on a
// stream worker, so torch.cuda.manual_seed replays them. Other dtypes, and a generator
// of another device, go to the CPU fallback (counted there).
#include <cmath>
#include <cstring>
#include <mutex>

#include <ATen/core/PhiloxRNGEngine.h>
#include <ATen/core/Tensor.h>
#include <ATen/native/CPUFallback.h>
#include <ATen/ops/normal_ops.h>
#include <ATen/ops/uniform_ops.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

#include "third_device/torch_cuda/csrc/framework/cuda_backend.h"
#include "third_device/torch_cuda/simulated/csrc/simulated_variant.h"
#include "torch_core/aten/cpu_fallback.h"
#include "torch_core/aten/kernel_loop.h"
#include "torch_core/aten/tensor_loop.h"
#include "torch_core/device/philox_generator.h"

namespace torch_cuda::simulated {

namespace {

template <class Op, class... Args>
decltype(auto) fall_back(Args&&... args) {
  return at::native::call_fallback_fn<&torch_core::cpu_fallback<c10::DeviceType::CUDA>, Op>::call(
      std::forward<Args>(args)...);
}

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
  torch_core::PhiloxGenerator* gen = torch_core::philox_generator_or_default(
      generator, backend().default_generator(self.device().index()), c10::DeviceType::CUDA);
  std::lock_guard<std::mutex> lock(gen->mutex_);
  return gen->philox_inputs(draws);
}

template <typename T, typename Transform>
void launch_random(at::Tensor& self, const torch_core::PhiloxInputs& inputs, Transform transform) {
  const auto loop = torch_core::make_loop<1>(self.sizes(), {&self});
  const torch_core::StreamHandle stream = backend().streams().current_handle(self.device().index());
  launch(stream, [loop, inputs, transform] {
    at::philox_engine engine(inputs.seed, /*subsequence=*/0, inputs.offset / 4);
    torch_core::loop::for_each(loop, [&](std::array<char*, 1>& ptrs) {
      const T value = transform(engine);
      std::memcpy(ptrs[0], &value, sizeof(T));
    });
  });
}

bool random_native(const at::Tensor& self, const std::optional<at::Generator>& generator) {
  return self.device().is_cuda() && self.layout() == c10::kStrided &&
         self.dim() <= torch_core::loop::kMaxDims &&
         (self.scalar_type() == c10::kFloat || self.scalar_type() == c10::kDouble) &&
         (!generator.has_value() || !generator->defined() || generator->device().is_cuda());
}

at::Tensor& normal_(at::Tensor& self, double mean, double std, std::optional<at::Generator> generator) {
  TORCH_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  if (!random_native(self, generator)) return fall_back<at::_ops::normal_>(self, mean, std, generator);
  if (self.numel() == 0) return self;
  const c10::DeviceGuard guard(self.device());
  const auto numel = static_cast<uint64_t>(self.numel());
  if (self.scalar_type() == c10::kFloat) {  // Box-Muller: two uniforms per element
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
  if (!random_native(self, generator)) return fall_back<at::_ops::uniform_>(self, from, to, generator);
  if (self.numel() == 0) return self;
  const c10::DeviceGuard guard(self.device());
  const auto numel = static_cast<uint64_t>(self.numel());
  if (self.scalar_type() == c10::kFloat) {  // 1 - u maps (0, 1] to [0, 1)
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

}  // namespace

}  // namespace torch_cuda::simulated

// Static registration (the target is alwayslink).
TORCH_LIBRARY_IMPL(aten, CUDA, m) {
  m.impl("normal_", TORCH_FN(torch_cuda::simulated::normal_));
  m.impl("uniform_", TORCH_FN(torch_cuda::simulated::uniform_));
}
