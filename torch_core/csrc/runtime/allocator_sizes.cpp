#include "torch_core/csrc/runtime/allocator_sizes.h"

#include <cstdio>

namespace torch_core {
namespace allocator_sizes {
namespace {

bool is_power_of_two(std::size_t value) { return value != 0 && (value & (value - 1)) == 0; }

std::size_t floor_power_of_two(std::size_t value) {
  std::size_t result = 1;
  while (value >>= 1) result <<= 1;
  return result;
}

// Rounds up to the next of `divisions` equal steps between the powers of two around
// `size`: with 4 divisions, 1200 MiB lands on 1280 MiB (steps of 256 MiB above 1 GiB).
std::size_t round_to_division(std::size_t size, std::size_t divisions) {
  if (is_power_of_two(size)) return size;
  const std::size_t floor = floor_power_of_two(size);
  const std::size_t step = floor / divisions;
  if (step == 0) return floor << 1;
  const std::size_t below = size & ~(step - 1);
  return below == size ? size : below + step;
}

}  // namespace

std::size_t round_size(std::size_t size, const AllocatorConfig& config) {
  if (size < kMinBlockSize) return kMinBlockSize;
  const std::size_t divisions = config.divisions_for(size);
  if (divisions > 1 && size > kMinBlockSize * divisions)
    return round_to_division(size, divisions);
  return kMinBlockSize * ((size + kMinBlockSize - 1) / kMinBlockSize);
}

std::size_t segment_size(std::size_t rounded) {
  if (rounded <= kSmallSize) return kSmallBuffer;
  if (rounded < kMinLargeAlloc) return kLargeBuffer;
  return kRoundLarge * ((rounded + kRoundLarge - 1) / kRoundLarge);
}

std::string format_size(std::size_t bytes) {
  char text[64];
  if (bytes <= 1024) {
    std::snprintf(text, sizeof(text), "%zu bytes", bytes);
  } else if (bytes <= (std::size_t{1} << 20)) {
    std::snprintf(text, sizeof(text), "%.2f KiB", bytes / 1024.0);
  } else if (bytes <= (std::size_t{1} << 30)) {
    std::snprintf(text, sizeof(text), "%.2f MiB", bytes / 1048576.0);
  } else {
    std::snprintf(text, sizeof(text), "%.2f GiB", bytes / 1073741824.0);
  }
  return text;
}

}  // namespace allocator_sizes
}  // namespace torch_core
