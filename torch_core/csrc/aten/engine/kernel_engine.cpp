#include "torch_core/aten/engine/kernel_engine.h"

#include <array>
#include <atomic>
#include <cctype>
#include <string>

#include <c10/util/Exception.h>

#include "torch_core/aten/engine/stub_kernels.h"

namespace torch_core::engine {

namespace {

std::array<std::atomic<KernelEngine*>, static_cast<std::size_t>(c10::DeviceType::COMPILE_TIME_MAX_DEVICE_TYPES)>
    engines{};

std::size_t slot(c10::DeviceType device_type) { return static_cast<std::size_t>(device_type); }

}  // namespace

void register_kernel_engine(c10::DeviceType device_type, KernelEngine* engine) {
  TORCH_CHECK(engine != nullptr, "register_kernel_engine: null engine for ", device_type);
  engines[slot(device_type)].store(engine);
  fill_stubs(device_type);
}

KernelEngine& kernel_engine(c10::DeviceType device_type) {
  KernelEngine* engine = engines[slot(device_type)].load();
  TORCH_CHECK(engine != nullptr, "no kernel engine is registered for ", device_type,
              ": the backend must call torch_core::engine::register_kernel_engine when it loads");
  return *engine;
}

namespace {

// "DivTrue" -> "div_true".
std::string snake_case(const char* camel) {
  std::string result;
  for (const char* c = camel; *c != '\0'; ++c) {
    if (std::isupper(static_cast<unsigned char>(*c)) && !result.empty()) result += '_';
    result += static_cast<char>(std::tolower(static_cast<unsigned char>(*c)));
  }
  return result;
}

}  // namespace

const char* name_of(ElementwiseOp op) {
  static const auto names = [] {
    std::array<std::string, static_cast<std::size_t>(ElementwiseOp::kCount)> result;
    std::size_t i = 0;
#define TORCH_CORE_NAME(name) result[i++] = snake_case(#name);
    TORCH_CORE_ELEMENTWISE_OPS(TORCH_CORE_NAME)
#undef TORCH_CORE_NAME
    return result;
  }();
  return names[static_cast<std::size_t>(op)].c_str();
}

const char* name_of(ReduceOp op) {
  static const auto names = [] {
    std::array<std::string, static_cast<std::size_t>(ReduceOp::kCount)> result;
    std::size_t i = 0;
#define TORCH_CORE_NAME(name) result[i++] = snake_case(#name);
    TORCH_CORE_REDUCE_OPS(TORCH_CORE_NAME)
#undef TORCH_CORE_NAME
    return result;
  }();
  return names[static_cast<std::size_t>(op)].c_str();
}

}  // namespace torch_core::engine
