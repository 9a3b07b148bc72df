// A pointer as text, for the simulated runtime's error messages ("0x7f3a...").
#pragma once

#include <sstream>
#include <string>

namespace torch_core {

inline std::string pointer_text(const void* ptr) {
  std::ostringstream text;
  text << ptr;
  return text.str();
}

}  // namespace torch_core
