#include "third_device/torch_cuda/torch_cuda/csrc/aten/blas/workspace_size.h"

#include <atomic>
#include <cstdlib>
#include <string>
#include <vector>

namespace torch_cuda::blas {
namespace {

constexpr std::size_t kUnset = static_cast<std::size_t>(-1);
std::atomic<std::size_t> set_bytes{kUnset};

}  // namespace

std::optional<std::size_t> parse_workspace_config(const char* config) {
  if (config == nullptr || *config == '\0') return std::nullopt;
  // ":SIZE:COUNT" repeated: SIZE KiB buffers, COUNT of them; the total is the sum.
  std::vector<unsigned long long> numbers;
  const std::string text(config);
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (text[pos] != ':') return std::nullopt;
    ++pos;
    const std::size_t start = pos;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') ++pos;
    if (pos == start || pos - start > 12) return std::nullopt;
    numbers.push_back(std::stoull(text.substr(start, pos - start)));
  }
  if (numbers.empty() || numbers.size() % 2 != 0) return std::nullopt;
  std::size_t total = 0;
  for (std::size_t i = 0; i < numbers.size(); i += 2) total += numbers[i] * 1024 * numbers[i + 1];
  return total;
}

std::size_t default_workspace_bytes(int major) {
  return major >= 9 ? std::size_t{32} << 20 : std::size_t{4096} * 1024 * 2 + std::size_t{16} * 1024 * 8;
}

void set_workspace_size(std::optional<std::size_t> bytes) { set_bytes.store(bytes.value_or(kUnset)); }

std::size_t workspace_bytes(int major) {
  const std::size_t set = set_bytes.load();
  if (set != kUnset) return set;
  static const std::optional<std::size_t> configured =
      parse_workspace_config(std::getenv("CUBLAS_WORKSPACE_CONFIG"));
  return configured ? *configured : default_workspace_bytes(major);
}

}  // namespace torch_cuda::blas
