// The plans of torch_cuda's cuDNN attention (scaled dot-product attention, SDPA), in plain
// host C++ (no CUDA or cuDNN header), so that both variants run the same plan. The CUDA
// key's _scaled_dot_product_cudnn_attention and its backward (cudnn_attention_ops.cpp)
// describe the call and plan it; an executor runs the plan:
//   real       cudnn/cudnn_attention_executor.cpp: a cuDNN frontend graph (sdpa or
//              sdpa_backward over the plan's tensors), built once per plan and device
//   simulated  simulated/csrc/host_attention.cpp: the same call on the host with the
//              graph's semantics (scaled scores plus the bias, the causal mask aligned top
//              left, a softmax whose log-sum-exp is the statistics, float accumulation,
//              dropout drawn from the call's Philox seed and offset)
// so a wrong stride, head grouping or mask fails in CI.
//
// Tensors are 4-d (batch, heads, sequence, head dim) through their strides, the head dim
// contiguous: Q (B, Hq, Sq, Dqk), K (B, Hkv, Skv, Dqk), V (B, Hkv, Skv, Dv), O and its
// gradient (B, Hq, Sq, Dv); the statistics (B, Hq, Sq, 1) dense float; the bias (B or 1,
// Hq or 1, Sq, Skv) through its strides. Hq is a multiple of Hkv (grouped-query attention:
// query head h reads key and value head h / (Hq / Hkv)).
#pragma once

#include <array>
#include <cstdint>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_tensors.h"

namespace torch_cuda::cudnn {

enum class AttentionPass : std::int8_t { kForward, kBackward };

using Dims4 = std::array<std::int64_t, 4>;

struct AttentionTensor {
  Dims4 sizes{};
  Dims4 strides{};
};

// What the operator asks for: the plan copies it after checking it.
struct AttentionCall {
  AttentionPass pass = AttentionPass::kForward;
  DataType data_type = DataType::kHalf;
  AttentionTensor q, k, v, o;
  AttentionTensor grad_o;               // backward
  AttentionTensor grad_q, grad_k, grad_v;  // backward: written
  bool has_bias = false;
  AttentionTensor bias;
  bool causal = false;
  double scale = 1.0;
  bool stats = false;  // forward: write the statistics (what backward reads)
  // The probability of dropping an attention probability (the kept ones are scaled by
  // 1 / (1 - dropout)); drawn from the Philox seed and offset the buffers point to, so
  // backward drops what its forward dropped.
  double dropout = 0.0;
};

using AttentionPlan = AttentionCall;

// The plan of `call`. Throws std::invalid_argument, saying which, for a data type other than
// half and bfloat16, sizes that do not agree (batch, heads, sequences, head dims), a query
// head count that is not a multiple of the key's, an empty dimension, a head dim that is not
// contiguous, a bias that does not broadcast to (B, Hq, Sq, Skv), or a size beyond cuDNN's
// int, or a dropout probability outside [0, 1].
AttentionPlan plan_attention(const AttentionCall& call);

}  // namespace torch_cuda::cudnn
