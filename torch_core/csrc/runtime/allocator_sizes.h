// Size policy of the caching device allocator (the constants are PyTorch's, so memory
// behaves as users of the CUDA caching allocator expect).
#pragma once

#include <cstddef>
#include <string>

#include "torch_core/csrc/runtime/allocator_config.h"

namespace torch_core {
namespace allocator_sizes {

constexpr std::size_t kMinBlockSize = 512;             // every size is a multiple of this
constexpr std::size_t kSmallSize = 1 << 20;            // requests up to 1 MiB: small pool
constexpr std::size_t kSmallBuffer = 2 << 20;          // small pool segment size
constexpr std::size_t kMinLargeAlloc = 10 << 20;       // large requests below this ...
constexpr std::size_t kLargeBuffer = 20 << 20;         // ... share a 20 MiB segment
constexpr std::size_t kRoundLarge = 2 << 20;           // larger segments: 2 MiB multiples
// Requests above this are refused as out of memory before any rounding can overflow.
constexpr std::size_t kMaxRequest = std::size_t{1} << 60;

// The block size a request of `size` bytes is served with.
std::size_t round_size(std::size_t size, const AllocatorConfig& config);
// The segment size asked of the runtime for a block of `rounded` bytes.
std::size_t segment_size(std::size_t rounded);
// "1.50 GiB", "512 bytes": sizes in messages.
std::string format_size(std::size_t bytes);

}  // namespace allocator_sizes
}  // namespace torch_core
