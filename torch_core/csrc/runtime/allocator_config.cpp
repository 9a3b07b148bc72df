#include "torch_core/csrc/runtime/allocator_config.h"

#include <cerrno>
#include <cstdlib>
#include <utility>
#include <vector>

#include "torch_core/csrc/runtime/device_runtime.h"

namespace torch_core {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;
// As PyTorch: a smaller max_split_size_mb would forbid splitting the 20 MiB segments
// that serve 1..10 MiB requests.
constexpr std::size_t kMinSplitSizeMb = 20;
constexpr std::size_t kMaxMb = std::numeric_limits<std::size_t>::max() / kMiB;

constexpr const char* kAccepted =
    "accepted keys: max_split_size_mb:<MiB, >= 20>, max_non_split_rounding_mb:<MiB, >= "
    "20>, garbage_collection_threshold:<fraction, 0 < x < 1>, "
    "roundup_power2_divisions:<0 or a power of two> or "
    "[<MiB, power of two>:<divisions>,...,>:<divisions>], expandable_segments:True|False, "
    "per_process_memory_fraction:<fraction, 0 <= x <= 1>, backend:native, and stock's keys that have "
    "no effect here: release_lock_on_cudamalloc, pinned_use_cuda_host_register, "
    "pinned_use_background_threads, graph_capture_record_stream_reuse (True|False), "
    "pinned_num_register_threads:<power of two, <= 128>, pinned_reserve_segment_size_mb:<MiB>";

// Stock's CUDA allocator keys that this allocator has nothing to switch by: checked as
// stock checks them, so a setting written for stock is accepted, then ignored.
bool is_flag_without_effect(const std::string& key) {
  return key == "release_lock_on_cudamalloc" || key == "pinned_use_cuda_host_register" ||
         key == "pinned_use_background_threads" || key == "graph_capture_record_stream_reuse";
}

bool is_power_of_two(std::size_t value) { return value != 0 && (value & (value - 1)) == 0; }

int floor_log2(std::size_t value) {
  int log = -1;
  while (value != 0) {
    value >>= 1;
    ++log;
  }
  return log;
}

// Splits as PyTorch's ConfigTokenizer: ',' ':' '[' ']' are tokens of their own, spaces
// are dropped, anything else runs together.
std::vector<std::string> tokenize(const std::string& text) {
  std::vector<std::string> tokens;
  std::string current;
  auto flush = [&] {
    if (!current.empty()) tokens.push_back(current);
    current.clear();
  };
  for (char c : text) {
    if (c == ',' || c == ':' || c == '[' || c == ']') {
      flush();
      tokens.emplace_back(1, c);
    } else if (c != ' ' && c != '\t') {
      current += c;
    }
  }
  flush();
  return tokens;
}

class Parser {
 public:
  Parser(const std::string& text, const std::string& env_var)
      : text_(text), env_var_(env_var), tokens_(tokenize(text)) {}

  AllocatorConfig run(AllocatorConfig config) {
    while (i_ < tokens_.size()) {
      const std::string key = next("a key");
      item_ = key;
      expect(":");
      if (key == "max_split_size_mb") {
        config.max_split_size = megabytes(key);
      } else if (key == "max_non_split_rounding_mb") {
        config.max_non_split_rounding_size = megabytes(key);
      } else if (key == "garbage_collection_threshold") {
        config.garbage_collection_threshold = fraction(key, /*closed=*/false);
      } else if (key == "roundup_power2_divisions") {
        divisions(config);
      } else if (key == "expandable_segments") {
        config.expandable_segments = boolean(key);
      } else if (key == "per_process_memory_fraction") {
        config.per_process_memory_fraction = fraction(key, /*closed=*/true);
      } else if (is_flag_without_effect(key)) {
        boolean(key);
      } else if (key == "pinned_num_register_threads") {
        const std::size_t threads = integer(key);
        if (!is_power_of_two(threads) || threads > 128) fail("must be a power of two up to 128");
      } else if (key == "pinned_reserve_segment_size_mb") {
        if (integer(key) == 0) fail("must be positive");
      } else if (key == "backend") {
        const std::string value = next("native");
        item_ = key + ":" + value;
        if (value != "native") fail("only the native backend is available");
      } else {
        fail("unknown key '" + key + "'");
      }
      if (i_ < tokens_.size()) {
        expect(",");
        if (i_ == tokens_.size()) fail("expected a key after ','");
      }
    }
    return config;
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const {
    throw RuntimeError("invalid " + env_var_ + "='" + text_ + "': " + problem + " (at '" +
                       item_ + "'); " + kAccepted);
  }

  std::string next(const char* what) {
    if (i_ >= tokens_.size()) fail(std::string("expected ") + what + " at the end");
    return tokens_[i_++];
  }

  void expect(const char* token) {
    if (i_ >= tokens_.size()) fail(std::string("expected '") + token + "' at the end");
    const std::string got = tokens_[i_++];
    if (got != token) fail(std::string("expected '") + token + "' but found '" + got + "'");
  }

  std::size_t integer(const std::string& key) {
    const std::string value = next("a number");
    item_ = key + ":" + value;
    if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos)
      fail("'" + value + "' is not a non-negative integer");
    errno = 0;
    const unsigned long long parsed = std::strtoull(value.c_str(), nullptr, 10);
    if (errno == ERANGE || parsed > std::numeric_limits<std::size_t>::max())
      fail("'" + value + "' is out of range");
    return static_cast<std::size_t>(parsed);
  }

  std::size_t megabytes(const std::string& key) {
    const std::size_t mb = integer(key);
    if (mb < kMinSplitSizeMb) fail(key + " must be >= " + std::to_string(kMinSplitSizeMb));
    return (mb > kMaxMb ? kMaxMb : mb) * kMiB;
  }

  bool boolean(const std::string& key) {
    const std::string value = next("True or False");
    item_ = key + ":" + value;
    if (value == "True" || value == "true") return true;
    if (value != "False" && value != "false") fail("expected True or False");
    return false;
  }

  // In (0, 1), or in [0, 1] when `closed`.
  double fraction(const std::string& key, bool closed) {
    const std::string value = next("a number");
    item_ = key + ":" + value;
    char* end = nullptr;
    const double parsed = std::strtod(value.c_str(), &end);
    if (value.empty() || end != value.c_str() + value.size())
      fail("'" + value + "' is not a number");
    if (closed && !(parsed >= 0.0 && parsed <= 1.0)) fail(key + " must be in [0, 1]");
    if (!closed && !(parsed > 0.0 && parsed < 1.0)) fail(key + " must be in (0, 1)");
    return parsed;
  }

  std::size_t division_count(const std::string& key) {
    const std::size_t value = integer(key);
    if (value != 0 && !is_power_of_two(value))
      fail("divisions must be 0 or a power of two");
    return value;
  }

  // "[256:1,512:2,>:8]" follows PyTorch's documented meaning: 1 division below 256 MiB,
  // 2 for [256, 512) MiB, 8 from there up. (PyTorch's own parser applies each entry one
  // size class higher than its documentation says; we follow the documentation.)
  void divisions(AllocatorConfig& config) {
    auto& table = config.roundup_power2_divisions;
    const std::string key = "roundup_power2_divisions";
    if (i_ >= tokens_.size() || tokens_[i_] != "[") {
      table.fill(division_count(key));
      return;
    }
    ++i_;  // '['
    std::size_t covered = 0;  // size classes below this index are set
    bool closed = false;
    while (!closed) {
      const std::string bound = next("'<MiB>:<divisions>' or '>:<divisions>'");
      item_ = key + ":[" + bound;
      expect(":");
      const std::size_t count = division_count(key);
      if (bound == ">") {
        for (std::size_t k = covered; k < table.size(); ++k) table[k] = count;
        covered = table.size();
      } else {
        if (bound.find_first_not_of("0123456789") != std::string::npos)
          fail("'" + bound + "' is not a size in MiB");
        const std::size_t mb = std::strtoull(bound.c_str(), nullptr, 10);
        if (!is_power_of_two(mb) || mb < 2 || mb > (std::size_t{1} << 15))
          fail("size bounds must be powers of two from 2 to 32768 MiB");
        // Size classes entirely below `mb` MiB: indices 0 .. log2(mb) - 1.
        const std::size_t end = static_cast<std::size_t>(floor_log2(mb));
        if (end <= covered && covered != 0) fail("size bounds must increase");
        for (std::size_t k = covered; k < end; ++k) table[k] = count;
        covered = end;
      }
      const std::string separator = next("',' or ']'");
      if (separator == "]") {
        closed = true;
      } else if (separator != ",") {
        fail("expected ',' or ']' but found '" + separator + "'");
      }
    }
  }

  const std::string& text_;
  const std::string& env_var_;
  std::vector<std::string> tokens_;
  std::size_t i_ = 0;
  std::string item_;
};

}  // namespace

std::size_t AllocatorConfig::divisions_for(std::size_t size) const {
  const int log_size = size == 0 ? 0 : floor_log2(size);
  const std::size_t index = log_size > 20 ? static_cast<std::size_t>(log_size - 20) : 0;
  return roundup_power2_divisions[index < kRoundupIntervals ? index : kRoundupIntervals - 1];
}

AllocatorConfig AllocatorConfig::parse(const std::string& text, const std::string& env_var) {
  AllocatorConfig config;
  config.env_var = env_var;
  return Parser(text, env_var).run(std::move(config));
}

AllocatorConfig AllocatorConfig::parse_onto(AllocatorConfig base, const std::string& text, const std::string& source) {
  return Parser(text, source).run(std::move(base));
}

AllocatorConfig AllocatorConfig::from_env(const std::string& backend_env_var) {
  for (const std::string& name : {std::string("PYTORCH_ALLOC_CONF"), backend_env_var}) {
    if (const char* value = std::getenv(name.c_str())) return parse(value, name);
  }
  return parse("", backend_env_var);
}

}  // namespace torch_core
