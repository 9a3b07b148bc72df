#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/attention_executable.h"

#include <sstream>

namespace torch_cuda::cudnn {

AttentionCache& attention_cache(int device) {
  static auto* const caches = new DeviceCaches<AttentionCache>(AttentionCache::kUnbounded);
  return caches->get(device);
}

std::string attention_cache_key(const AttentionPlan& p) {
  std::ostringstream key;
  key << std::hexfloat << static_cast<int>(p.pass) << ' ' << static_cast<int>(p.data_type) << ' ' << p.has_bias
      << ' ' << p.causal << ' ' << p.stats << ' ' << p.scale << ' ' << p.dropout;
  for (const AttentionTensor* t : {&p.q, &p.k, &p.v, &p.o, &p.grad_o, &p.grad_q, &p.grad_k, &p.grad_v, &p.bias}) {
    for (int d = 0; d < 4; ++d) key << ' ' << t->sizes[d] << ':' << t->strides[d];
  }
  return key.str();
}

}  // namespace torch_cuda::cudnn
