#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/attention_plan.h"

#include <cstdint>
#include <string>

namespace torch_cuda::cudnn {
namespace {

constexpr const char* kPlan = "cuDNN attention plan";

[[noreturn]] void refuse(const std::string& what) { cudnn::refuse(kPlan, what); }

std::string shown(const Dims4& d) {
  return "(" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]) + ", " +
         std::to_string(d[3]) + ")";
}

void expect(const AttentionTensor& t, const Dims4& sizes, const char* name) {
  if (t.sizes != sizes) refuse(std::string(name) + " is " + shown(t.sizes) + ", expected " + shown(sizes));
  if (t.strides[3] != 1 && t.sizes[3] != 1) refuse(std::string(name) + "'s head dim is not contiguous");
  std::int64_t elements = 1;
  for (int d = 0; d < 4; ++d) {
    as_cudnn_int(kPlan, t.strides[d], "a stride");
    elements *= t.sizes[d];
  }
  as_cudnn_int(kPlan, elements, "an element count");
}

}  // namespace

AttentionPlan plan_attention(const AttentionCall& call) {
  if (call.data_type != DataType::kHalf && call.data_type != DataType::kBFloat16) {
    refuse("cuDNN's attention takes half and bfloat16, not float or double");
  }
  if (!(call.dropout >= 0.0 && call.dropout <= 1.0)) {
    refuse("the dropout probability " + std::to_string(call.dropout) + " is not in [0, 1]");
  }
  const Dims4& q = call.q.sizes;
  for (const std::int64_t size : q) {
    if (size <= 0) refuse("the query " + shown(q) + " has a dimension of size 0");
  }
  const std::int64_t batch = q[0], heads = q[1], s_q = q[2], d_qk = q[3];
  const std::int64_t kv_heads = call.k.sizes[1], s_kv = call.k.sizes[2], d_v = call.v.sizes[3];
  if (kv_heads <= 0 || s_kv <= 0 || d_v <= 0) refuse("the key or value has a dimension of size 0");
  if (heads % kv_heads != 0) {
    refuse(std::to_string(heads) + " query heads are not a multiple of " + std::to_string(kv_heads) + " key heads");
  }
  expect(call.q, q, "the query");
  expect(call.k, {batch, kv_heads, s_kv, d_qk}, "the key");
  expect(call.v, {batch, kv_heads, s_kv, d_v}, "the value");
  expect(call.o, {batch, heads, s_q, d_v}, "the output");
  if (call.pass == AttentionPass::kBackward) {
    expect(call.grad_o, call.o.sizes, "the output's gradient");
    expect(call.grad_q, call.q.sizes, "the query's gradient");
    expect(call.grad_k, call.k.sizes, "the key's gradient");
    expect(call.grad_v, call.v.sizes, "the value's gradient");
  }
  if (call.has_bias) {
    const Dims4& b = call.bias.sizes;
    if ((b[0] != 1 && b[0] != batch) || (b[1] != 1 && b[1] != heads) || b[2] != s_q || b[3] != s_kv) {
      refuse("the bias " + shown(b) + " does not broadcast to " + shown({batch, heads, s_q, s_kv}));
    }
    for (int d = 0; d < 4; ++d) as_cudnn_int(kPlan, call.bias.strides[d], "a bias stride");
  }
  return call;
}

}  // namespace torch_cuda::cudnn
