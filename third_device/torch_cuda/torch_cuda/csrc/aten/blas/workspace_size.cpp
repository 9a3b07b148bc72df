#include "third_device/torch_cuda/torch_cuda/csrc/aten/blas/workspace_size.h"

#include <atomic>
#include <cctype>
#include <cstdlib>
#include <string>
#include <vector>

namespace torch_cuda::blas {
namespace {

constexpr std::size_t kUnset = static_cast<std::size_t>(-1);
constexpr std::size_t kDefaultLtBytes = std::size_t{1024} * 1024;  // ATen's 1024 KiB
std::atomic<std::size_t> set_bytes{kUnset};
std::atomic<std::size_t> set_lt_bytes{kUnset};

// TORCH_CUBLASLT_UNIFIED_WORKSPACE: on unless "0" or "false" (ATen's default is on).
bool unified_workspaces() {
  const char* value = std::getenv("TORCH_CUBLASLT_UNIFIED_WORKSPACE");
  if (value == nullptr) return true;
  std::string text(value);
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text != "0" && text != "false";
}

// CUBLASLT_WORKSPACE_SIZE's size in bytes (the variable holds KiB); nullopt when `kib` is
// null, empty or not a number.
std::optional<std::size_t> parse_lt_workspace_size(const char* kib) {
  if (kib == nullptr || *kib == '\0') return std::nullopt;
  const std::string text(kib);
  if (text.size() > 12 || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return static_cast<std::size_t>(std::stoull(text)) * 1024;
}

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

void set_lt_workspace_size(std::optional<std::size_t> bytes) { set_lt_bytes.store(bytes.value_or(kUnset)); }

LtWorkspaceSize lt_workspace_bytes(int major) {
  static const char* const variable = std::getenv("CUBLASLT_WORKSPACE_SIZE");
  static const std::optional<std::size_t> configured = parse_lt_workspace_size(variable);
  static const bool bad_config = variable != nullptr && *variable != '\0' && !configured;
  static const bool unified = unified_workspaces();
  const std::size_t set = set_lt_bytes.load();
  const std::size_t requested = set != kUnset ? set : configured.value_or(kDefaultLtBytes);
  const std::size_t cublas = workspace_bytes(major);
  if (unified && requested > cublas) return {cublas, requested, true, bad_config, unified};
  return {requested, requested, false, bad_config, unified};
}

}  // namespace torch_cuda::blas
