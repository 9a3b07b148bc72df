// The operations' names for messages (elementwise_call.h, reduce_call.h): "div_true",
// "std_var", made once from the operation lists.
#include <array>
#include <cctype>
#include <cstddef>
#include <string>

#include "torch_core/aten/engine/elementwise_call.h"
#include "torch_core/aten/engine/reduce_call.h"

namespace torch_core::engine {

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
