// The operations' names for messages (elementwise_call.h, reduce_call.h, random_call.h): "div_true",
// "std_var", made once from the operation lists.
#include <array>
#include <cctype>
#include <cstddef>
#include <string>

#include "torch_core/csrc/aten/engine/elementwise_call.h"
#include "torch_core/csrc/aten/engine/random_call.h"
#include "torch_core/csrc/aten/engine/reduce_call.h"

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

// The snake_case name of `op` from its enum's CamelCase list, converted once per list.
template <typename Op, std::size_t N>
const char* snake_name(const std::array<const char*, N>& camel, Op op) {
  static const std::array<std::string, N> names = [&] {
    std::array<std::string, N> result;
    for (std::size_t i = 0; i < N; ++i) result[i] = snake_case(camel[i]);
    return result;
  }();
  return names[static_cast<std::size_t>(op)].c_str();
}

#define TORCH_CORE_STRING(name) #name,

}  // namespace

const char* name_of(ElementwiseOp op) {
  static constexpr std::array kCamel = {TORCH_CORE_ELEMENTWISE_OPS(TORCH_CORE_STRING)};
  return snake_name(kCamel, op);
}

const char* name_of(ReduceOp op) {
  static constexpr std::array kCamel = {TORCH_CORE_REDUCE_OPS(TORCH_CORE_STRING)};
  return snake_name(kCamel, op);
}

const char* name_of(RandomOp op) {
  static constexpr std::array kCamel = {TORCH_CORE_RANDOM_OPS(TORCH_CORE_STRING)};
  return snake_name(kCamel, op);
}

#undef TORCH_CORE_STRING

}  // namespace torch_core::engine
