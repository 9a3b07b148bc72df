#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn_rnn_weights.h"

#include <utility>

#include <ATen/Context.h>
#include <c10/util/Exception.h>
#include <c10/util/irange.h>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn_operands.h"

namespace torch_cuda::native {
namespace {

// The view of `count` elements from `address` within `weight_buf`, shaped `sizes`.
at::Tensor view_at(const at::Tensor& weight_buf, const void* address, std::int64_t count, at::IntArrayRef sizes) {
  const auto* base = static_cast<const char*>(weight_buf.const_data_ptr());
  const std::int64_t bytes = static_cast<const char*>(address) - base;
  const std::int64_t element = static_cast<std::int64_t>(weight_buf.element_size());
  TORCH_INTERNAL_ASSERT(bytes >= 0 && bytes % element == 0 && bytes / element + count <= weight_buf.numel(),
                        "cuDNN placed an RNN weight outside its weight space");
  return weight_buf.narrow(0, bytes / element, count).view(sizes);
}

// The matrices (or biases) of `first`..`first + gates` as one view, checking they adjoin.
at::Tensor merged(const cudnn::RnnExecutable& executable, const at::Tensor& weight_buf, int pseudo_layer, int first,
                  int gates, bool bias) {
  const cudnn::WeightRegion head = executable.weight_params(weight_buf.const_data_ptr(), pseudo_layer, first);
  const std::int64_t rows = bias ? head.bias_size : head.rows, columns = bias ? 1 : head.columns;
  const void* start = bias ? head.bias : head.matrix;
  for (const auto g : c10::irange(1, gates)) {
    const cudnn::WeightRegion next = executable.weight_params(weight_buf.const_data_ptr(), pseudo_layer, first + g);
    const void* expected = static_cast<const char*>(start) + g * rows * columns * weight_buf.element_size();
    TORCH_INTERNAL_ASSERT((bias ? next.bias : next.matrix) == expected,
                          "cuDNN's RNN weight space does not keep a layer's gates adjacent");
  }
  if (bias) return view_at(weight_buf, start, gates * rows, {gates * rows});
  return view_at(weight_buf, start, gates * rows * columns, {gates * rows, columns});
}

}  // namespace

cudnn::RnnCall rnn_call(const RnnShape& shape, c10::ScalarType type, std::vector<std::int64_t> batch_sizes) {
  TORCH_CHECK(shape.mode >= 0 && shape.mode <= 3, "unrecognized cuDNN RNN mode ", shape.mode,
              " (0 RNN_RELU, 1 RNN_TANH, 2 LSTM, 3 GRU: torch._C._cudnn.RNNMode)");
  cudnn::RnnCall call;
  call.mode = static_cast<cudnn::RnnMode>(shape.mode);
  call.data_type = cudnn_data_type_of(type, "cuDNN's RNN");
  call.input_size = shape.input_size;
  call.hidden_size = shape.hidden_size;
  call.proj_size = shape.proj_size;
  call.num_layers = shape.num_layers;
  call.bidirectional = shape.bidirectional;
  call.batch_sizes = std::move(batch_sizes);
  call.allow_tf32 = at::globalContext().allowTF32CuDNN(at::Float32Op::RNN);
  return call;
}

cudnn::RnnPlan plan_or_throw(const cudnn::RnnCall& call) {
  return planned([&] { return cudnn::plan_rnn(call); });
}

std::unique_ptr<cudnn::RnnExecutable> rnn_executable(const cudnn::RnnPlan& plan, const at::Tensor& dropout_state) {
  TORCH_CHECK(!plan.train || plan.dropout == 0 || dropout_state.defined(),
              "cuDNN RNN: training with dropout ", plan.dropout,
              " needs a dropout state (torch._cudnn_init_dropout_state)");
  void* state = dropout_state.defined() ? dropout_state.data_ptr() : nullptr;
  const std::int64_t bytes = dropout_state.defined() ? dropout_state.numel() : 0;
  return planned([&] { return cudnn::make_rnn_executable(plan, state, bytes); });
}

std::int64_t weight_space_elements(const cudnn::RnnExecutable& executable, const at::Tensor& like) {
  return executable.weight_space_size() / static_cast<std::int64_t>(like.element_size());
}

std::vector<at::Tensor> weight_views(const cudnn::RnnExecutable& executable, const cudnn::RnnPlan& plan,
                                     const at::Tensor& weight_buf, std::int64_t weight_stride0) {
  const std::int64_t projection = plan.projected() ? 1 : 0;
  TORCH_CHECK(weight_stride0 == 2 + projection || weight_stride0 == 4 + projection, "cuDNN RNN: weight_stride0 ",
              weight_stride0, " does not fit ", plan.projected() ? "an LSTM with a projection (3 or 5)" : "2 or 4");
  const bool biases = weight_stride0 >= 4;
  std::vector<at::Tensor> views;
  for (const auto q : c10::irange(plan.pseudo_layers())) {
    const int g = plan.gates;
    views.push_back(merged(executable, weight_buf, q, cudnn::input_lin_layer(0), g, false));
    views.push_back(merged(executable, weight_buf, q, cudnn::recurrent_lin_layer(plan, 0), g, false));
    if (biases) {
      views.push_back(merged(executable, weight_buf, q, cudnn::input_lin_layer(0), g, true));
      views.push_back(merged(executable, weight_buf, q, cudnn::recurrent_lin_layer(plan, 0), g, true));
    }
    if (plan.projected()) views.push_back(merged(executable, weight_buf, q, cudnn::kProjectionLinLayer, 1, false));
  }
  return views;
}

void copy_into_views(at::TensorList weights, const std::vector<at::Tensor>& views) {
  TORCH_CHECK(weights.size() == views.size(), "cuDNN RNN: expected ", views.size(), " weights, got ", weights.size());
  for (const auto i : c10::irange(weights.size())) {
    const at::Tensor& from = weights[i];
    const at::Tensor& to = views[i];
    TORCH_CHECK(from.scalar_type() == to.scalar_type(), "cuDNN RNN: parameter types mismatch (", from.scalar_type(),
                " and ", to.scalar_type(), ")");
    TORCH_CHECK(from.sizes() == to.sizes(), "cuDNN RNN: a weight of size ", from.sizes(), " where the layer needs ",
                to.sizes());
    to.copy_(from);
  }
}

}  // namespace torch_cuda::native
