// Minimal assertions for torch-free C++ tests (googletest cannot be fetched here).
// A failed CHECK prints the expression, the values and the location, and the test
// exits non-zero at the end of main via check_summary().
#pragma once

#include <cstdio>
#include <exception>
#include <functional>
#include <sstream>
#include <string>

namespace cc_check {

inline int& failures() {
  static int count = 0;
  return count;
}

inline void fail(const char* file, int line, const std::string& message) {
  ++failures();
  std::fprintf(stderr, "%s:%d: FAILED: %s\n", file, line, message.c_str());
}

// Runs one named test case; an escaping exception counts as a failure.
inline void run(const char* name, const std::function<void()>& body) {
  const int before = failures();
  try {
    body();
  } catch (const std::exception& error) {
    fail(name, 0, std::string("unexpected exception: ") + error.what());
  }
  std::fprintf(stderr, "[%s] %s\n", failures() == before ? "PASS" : "FAIL", name);
}

// Returns main's exit status.
inline int summary() {
  std::fprintf(stderr, "%d check(s) failed\n", failures());
  return failures() == 0 ? 0 : 1;
}

}  // namespace cc_check

#define CHECK_TRUE(expr)                                                     \
  do {                                                                       \
    if (!(expr)) ::cc_check::fail(__FILE__, __LINE__, "expected: " #expr);  \
  } while (false)

#define CHECK_EQ(a, b)                                                       \
  do {                                                                       \
    const auto& check_a_ = (a);                                              \
    const auto& check_b_ = (b);                                              \
    if (!(check_a_ == check_b_)) {                                           \
      std::ostringstream check_message_;                                     \
      check_message_ << #a " == " #b " (" << check_a_ << " vs " << check_b_ \
                     << ")";                                                 \
      ::cc_check::fail(__FILE__, __LINE__, check_message_.str());           \
    }                                                                        \
  } while (false)

// Checks that `statement` throws `exception_type` whose what() contains `fragment`.
#define CHECK_THROWS(statement, exception_type, fragment)                      \
  do {                                                                         \
    bool check_thrown_ = false;                                                \
    try {                                                                      \
      statement;                                                               \
    } catch (const exception_type& check_error_) {                             \
      check_thrown_ = true;                                                    \
      if (std::string(check_error_.what()).find(fragment) == std::string::npos) \
        ::cc_check::fail(__FILE__, __LINE__,                                   \
                         std::string("message lacks '") + (fragment) +         \
                             "': " + check_error_.what());                     \
    }                                                                          \
    if (!check_thrown_)                                                        \
      ::cc_check::fail(__FILE__, __LINE__, "expected " #exception_type         \
                                           " from " #statement);              \
  } while (false)
