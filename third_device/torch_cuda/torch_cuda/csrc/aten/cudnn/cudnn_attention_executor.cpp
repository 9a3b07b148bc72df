// The real variant's executor of attention_plan.h's plans: cuDNN's SDPA through its
// frontend's graph API, as stock's cudnn/MHA.cpp builds it: the plan's tensors with their
// dimensions and strides (half or bfloat16 in and out, float statistics and compute), an
// sdpa node (the plan's scale, bias, top-left causal mask and dropout from the device's
// Philox seed and offset, statistics when training) or an sdpa_backward node, validated,
// lowered to cuDNN's backend, planned by heuristic A, checked for support and built (once
// per plan and device: the operator keeps it in attention_cache). Running it binds the
// thread's cuDNN handle to the stream and executes with the buffers' pointers.
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <cudnn_frontend.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/attention_executable.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_check.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_common.h"

namespace torch_cuda::cudnn {
namespace {

namespace fe = cudnn_frontend;
using TensorPtr = std::shared_ptr<fe::graph::Tensor_attributes>;

// The uids the buffers are bound by.
enum Uid : std::int64_t { kQ = 1, kK, kV, kO, kStats, kBias, kGradO, kGradQ, kGradK, kGradV, kSeed, kOffset };

void ok(fe::error_t status, const char* step) {
  if (status.is_bad()) {
    throw std::runtime_error(std::string("cuDNN attention: ") + step + " failed: " + status.get_message() +
                             "; turning cuDNN attention off (torch.backends.cuda.enable_cudnn_sdp(False)) runs "
                             "torch's math attention");
  }
}

std::vector<std::int64_t> vec(const Dims4& d) { return {d[0], d[1], d[2], d[3]}; }

// A size-1 dimension's stride is never read; an expanded one's 0 is one the frontend's
// checks refuse, so it becomes 1, as stock's fixSizeOneDimStrideSDPA makes it.
std::vector<std::int64_t> strides(const AttentionTensor& t) {
  std::vector<std::int64_t> out = vec(t.strides);
  for (int d = 0; d < 4; ++d) {
    if (t.sizes[d] == 1 && out[d] == 0) out[d] = 1;
  }
  return out;
}

TensorPtr input(fe::graph::Graph& graph, const AttentionTensor& t, Uid uid, const char* name) {
  return graph.tensor(
      fe::graph::Tensor_attributes().set_name(name).set_uid(uid).set_dim(vec(t.sizes)).set_stride(strides(t)));
}

void output(const TensorPtr& tensor, const AttentionTensor& t, Uid uid) {
  tensor->set_output(true).set_uid(uid).set_dim(vec(t.sizes)).set_stride(strides(t));
}

// A dropout seed or offset: one int64 in device memory, as stock's MHA.cpp passes them.
TensorPtr philox_word(fe::graph::Graph& graph, Uid uid, const char* name) {
  return graph.tensor(fe::graph::Tensor_attributes()
                          .set_name(name)
                          .set_uid(uid)
                          .set_dim({1, 1, 1, 1})
                          .set_stride({1, 1, 1, 1})
                          .set_data_type(fe::DataType_t::INT64));
}

// The statistics (B, Hq, Sq, 1), dense float.
AttentionTensor stats_geometry(const AttentionPlan& p) {
  const Dims4& q = p.q.sizes;
  return {{q[0], q[1], q[2], 1}, {q[1] * q[2], q[2], 1, 1}};
}

class CudnnAttention final : public AttentionExecutable {
 public:
  CudnnAttention(const AttentionPlan& plan, int device) : plan_(plan) {
    const cudnnHandle_t handle = cudnn_handle(device);
    graph_.set_io_data_type(plan.data_type == DataType::kHalf ? fe::DataType_t::HALF : fe::DataType_t::BFLOAT16)
        .set_intermediate_data_type(fe::DataType_t::FLOAT)
        .set_compute_data_type(fe::DataType_t::FLOAT);
    const TensorPtr q = input(graph_, plan.q, kQ, "Q"), k = input(graph_, plan.k, kK, "K"),
                    v = input(graph_, plan.v, kV, "V");
    const TensorPtr bias = plan.has_bias ? input(graph_, plan.bias, kBias, "bias") : nullptr;
    const auto scale = static_cast<float>(plan.scale);
    const bool dropout = plan.dropout > 0.0;
    const TensorPtr seed = dropout ? philox_word(graph_, kSeed, "seed") : nullptr;
    const TensorPtr offset = dropout ? philox_word(graph_, kOffset, "offset") : nullptr;
    if (plan.pass == AttentionPass::kForward) {
      auto attributes = fe::graph::SDPA_attributes().set_name("sdpa").set_generate_stats(plan.stats);
      attributes.set_causal_mask(plan.causal).set_attn_scale(scale);
      if (bias) attributes.set_bias(bias);
      if (dropout) attributes.set_dropout(static_cast<float>(plan.dropout), seed, offset);
      auto [o, stats] = graph_.sdpa(q, k, v, attributes);
      output(o, plan.o, kO);
      if (plan.stats) {
        stats->set_data_type(fe::DataType_t::FLOAT);
        output(stats, stats_geometry(plan), kStats);
      }
    } else {
      const TensorPtr o = input(graph_, plan.o, kO, "O"), grad_o = input(graph_, plan.grad_o, kGradO, "dO");
      const TensorPtr stats = input(graph_, stats_geometry(plan), kStats, "stats");
      stats->set_data_type(fe::DataType_t::FLOAT);
      auto attributes = fe::graph::SDPA_backward_attributes().set_name("sdpa_backward");
      attributes.set_causal_mask(plan.causal).set_attn_scale(scale);
      if (bias) attributes.set_bias(bias);
      if (dropout) attributes.set_dropout(static_cast<float>(plan.dropout), seed, offset);
      auto [grad_q, grad_k, grad_v] = graph_.sdpa_backward(q, k, v, o, grad_o, stats, attributes);
      output(grad_q, plan.grad_q, kGradQ);
      output(grad_k, plan.grad_k, kGradK);
      output(grad_v, plan.grad_v, kGradV);
    }
    ok(graph_.validate(), "validate");
    ok(graph_.build_operation_graph(handle), "build_operation_graph");
    ok(graph_.create_execution_plans({fe::HeurMode_t::A}), "create_execution_plans");
    ok(graph_.check_support(handle), "check_support");
    ok(graph_.build_plans(handle), "build_plans");
    workspace_bytes_ = graph_.get_workspace_size();
  }

  std::int64_t workspace_size() const override { return workspace_bytes_; }

  void run(const AttentionBuffers& b, torch_core::StreamHandle stream) const override {
    // One graph may run from several threads, each with its own handle.
    const cudnnHandle_t handle = cudnn_handle(current_device());
    TORCH_CUDNN_CHECK(cudnnSetStream(handle, static_cast<cudaStream_t>(stream)));
    std::unordered_map<std::int64_t, void*> pointers = {{kQ, const_cast<void*>(b.q)},
                                                        {kK, const_cast<void*>(b.k)},
                                                        {kV, const_cast<void*>(b.v)},
                                                        {kO, b.o}};
    if (plan_.has_bias) pointers[kBias] = const_cast<void*>(b.bias);
    if (plan_.dropout > 0.0) {
      pointers[kSeed] = const_cast<void*>(b.dropout_seed);
      pointers[kOffset] = const_cast<void*>(b.dropout_offset);
    }
    if (plan_.pass == AttentionPass::kForward) {
      if (plan_.stats) pointers[kStats] = b.stats;
    } else {
      pointers[kStats] = b.stats;
      pointers[kGradO] = const_cast<void*>(b.grad_o);
      pointers[kGradQ] = b.grad_q;
      pointers[kGradK] = b.grad_k;
      pointers[kGradV] = b.grad_v;
    }
    ok(graph_.execute(handle, pointers, b.workspace), "execute");
  }

 private:
  AttentionPlan plan_;
  fe::graph::Graph graph_;
  std::int64_t workspace_bytes_ = 0;
};

}  // namespace

std::unique_ptr<AttentionExecutable> make_attention_executable(const AttentionPlan& plan) {
  return std::make_unique<CudnnAttention>(plan, current_device());
}

}  // namespace torch_cuda::cudnn
