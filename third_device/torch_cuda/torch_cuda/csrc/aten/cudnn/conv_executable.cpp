#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/conv_executable.h"

#include <cerrno>
#include <cstdlib>

namespace torch_cuda::cudnn {

std::int64_t conv_cache_capacity(const char* value) {
  constexpr std::int64_t kDefault = 10000;
  if (value == nullptr) return kDefault;
  char* end = nullptr;
  errno = 0;
  const long long parsed = std::strtoll(value, &end, 10);
  if (end == value || *end != '\0' || errno != 0) return kDefault;
  if (parsed == 0) return ConvCache::kUnbounded;
  return parsed < 0 ? 0 : static_cast<std::int64_t>(parsed);
}

ConvCache& conv_cache(int device) {
  static auto* const caches =
      new DeviceCaches<ConvCache>(conv_cache_capacity(std::getenv("TORCH_CUDNN_V8_API_LRU_CACHE_LIMIT")));
  return caches->get(device);
}

}  // namespace torch_cuda::cudnn
