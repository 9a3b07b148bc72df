// The CUDA slots of the RNN DispatchStubs (lstm/gru/rnn_tanh/rnn_relu_cudnn_stub and their
// _packed_ forms) that at::lstm, at::gru, at::rnn_tanh and at::rnn_relu call when
// cudnn_is_acceptable, as stock's cudnn/RNN.cpp fills them: the parameters' shared weight
// space when they are views into one laid out as cuDNN's (what flatten_parameters leaves;
// otherwise _cudnn_rnn compacts them and warns), the device's dropout state (made from the
// CUDA generator, again after it is reseeded), then at::_cudnn_rnn, whose autograd formula
// is _cudnn_rnn_backward.
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include <ATen/Context.h>
#include <ATen/core/Tensor.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <ATen/native/RNN.h>
#include <ATen/ops/_cudnn_init_dropout_state.h>
#include <ATen/ops/_cudnn_rnn.h>
#include <ATen/ops/empty.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/Event.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <c10/util/irange.h>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn_rnn_weights.h"
#include "torch_core/csrc/aten/engine/stub_slot.h"
#include "torch_core/csrc/device/philox_generator.h"

namespace torch_cuda::native {
namespace {

using at::Tensor;

// One device's dropout state: made on the first training call with dropout, made again after
// the CUDA generator is seeded (torch.manual_seed), held while an RNN draws from it. As
// stock's, each user's work waits on the stream for the previous user's (the state's event),
// since cuDNN advances the state on the device. (Stock also skips that wait across CUDA
// graph captures; this one does not.)
struct DropoutState {
  Tensor buffer;
  std::optional<c10::Event> event;
  std::mutex mutex;

  void lock() {
    mutex.lock();
    if (event) event->block(current_stream());
  }
  void unlock() {
    if (event) event->record(current_stream());
    mutex.unlock();
  }

 private:
  c10::Stream current_stream() const {
    return c10::impl::getDeviceGuardImpl(c10::DeviceType::CUDA)->getStream(buffer.device());
  }
};

DropoutState& dropout_state(double dropout, bool train, const at::TensorOptions& options) {
  static std::mutex cache_mutex;
  static std::vector<std::unique_ptr<DropoutState>> cache;
  const auto device = static_cast<std::size_t>(options.device().index());
  const std::lock_guard<std::mutex> lock(cache_mutex);
  if (cache.size() <= device) cache.resize(device + 1);
  if (!cache[device]) cache[device] = std::make_unique<DropoutState>();
  DropoutState& state = *cache[device];
  if (train && dropout > 0) {
    const at::Generator& generator = at::detail::getCUDAHooks().getDefaultGenerator(options.device().index());
    const bool reseeded = generator.get<torch_core::PhiloxGenerator>()->reset_rnn_state();
    if (!state.buffer.defined() || reseeded) {
      const std::lock_guard<std::mutex> using_state(state.mutex);  // not while an RNN draws
      const auto seed = at::empty({}, options.dtype(at::kLong)).random_(generator).item<std::int64_t>();
      state.buffer = at::_cudnn_init_dropout_state(dropout, train, seed, options.dtype(at::kByte));
      if (!state.event) state.event.emplace(c10::DeviceType::CUDA);
    }
  }
  return state;
}

// The parameters' weight space, when they are views into one laid out as cuDNN's; else
// undefined (stock's try_get_weight_buf).
Tensor weight_buf_of(at::TensorList params, bool has_biases, const RnnShape& shape) {
  const Tensor& any = params.at(0);
  const cudnn::RnnPlan plan = plan_or_throw(rnn_call(shape, any.scalar_type(), {1}));
  const auto executable = rnn_executable(plan);
  const std::int64_t elements = weight_space_elements(*executable, any);
  Tensor weight_buf = at::empty({0}, any.options()).set_(any.storage());
  if (weight_buf.size(0) < elements) return {};
  if (weight_buf.size(0) > elements) weight_buf = weight_buf.narrow(0, 0, elements);
  const std::int64_t per_layer = (has_biases ? 4 : 2) + (plan.projected() ? 1 : 0);
  const auto views = weight_views(*executable, plan, weight_buf, per_layer);
  if (params.size() != views.size()) return {};
  for (const auto i : c10::irange(views.size())) {
    if (params[i].data_ptr() != views[i].data_ptr()) return {};
  }
  if (!params.back().is_contiguous()) return {};
  return weight_buf;
}

// Stock's _cudnn_impl: (output, hy, cy) of `input` (packed when batch_sizes is defined).
std::tuple<Tensor, Tensor, Tensor> cudnn_impl(const Tensor& input, const Tensor& batch_sizes, const Tensor& hx,
                                              const Tensor& cx, at::TensorList params, bool has_biases,
                                              cudnn::RnnMode mode, int64_t num_layers, double dropout, bool train,
                                              bool bidirectional, bool batch_first) {
  std::int64_t hidden_size = hx.size(2), proj_size = 0;
  // An LSTM with a projection: hx holds the projection's width, cx the hidden size.
  if (cx.defined() && cx.size(2) != hx.size(2)) {
    hidden_size = cx.size(2);
    proj_size = hx.size(2);
  }
  const c10::DeviceGuard guard(input.device());
  const RnnShape shape{static_cast<std::int64_t>(mode), input.size(-1), hidden_size, proj_size, num_layers,
                       bidirectional};
  const Tensor weight_buf = weight_buf_of(params, has_biases, shape);
  std::vector<std::int64_t> sizes;
  if (batch_sizes.defined()) {
    TORCH_CHECK(batch_sizes.dim() == 1, "batch_sizes tensor should be 1D");
    TORCH_CHECK(batch_sizes.device().is_cpu(), "batch_sizes tensor should be on CPU, but got ", batch_sizes.device());
    const Tensor sizes_long = batch_sizes.contiguous();
    const auto* data = sizes_long.const_data_ptr<std::int64_t>();
    sizes.assign(data, data + sizes_long.numel());
  }
  DropoutState& state = dropout_state(dropout, train, input.options());
  const std::lock_guard<DropoutState> lock(state);
  const std::int64_t num_params = (has_biases ? 4 : 2) + (proj_size != 0 ? 1 : 0);
  auto [output, hy, cy, reserve, buf] =
      at::_cudnn_rnn(input, params, num_params, weight_buf, hx, cx, static_cast<std::int64_t>(mode), hidden_size,
                     proj_size, num_layers, batch_first, dropout, train, bidirectional, sizes, state.buffer);
  return {output, hy, cy};
}

template <cudnn::RnnMode Mode>
void one_hidden(Tensor& output, Tensor& hy, const Tensor& input, const Tensor& hx, at::TensorList params,
                bool has_biases, int64_t num_layers, double dropout, bool train, bool bidirectional,
                bool batch_first) {
  std::tie(output, hy, std::ignore) =
      cudnn_impl(input, {}, hx, {}, params, has_biases, Mode, num_layers, dropout, train, bidirectional, batch_first);
}

template <cudnn::RnnMode Mode>
void one_hidden_packed(Tensor& output, Tensor& hy, const Tensor& data, const Tensor& batch_sizes, const Tensor& hx,
                       at::TensorList params, bool has_biases, int64_t num_layers, double dropout, bool train,
                       bool bidirectional) {
  std::tie(output, hy, std::ignore) = cudnn_impl(data, batch_sizes, hx, {}, params, has_biases, Mode, num_layers,
                                                 dropout, train, bidirectional, /*batch_first=*/false);
}

void lstm(Tensor& output, Tensor& hy, Tensor& cy, const Tensor& input, at::TensorList hx, at::TensorList params,
          bool has_biases, int64_t num_layers, double dropout, bool train, bool bidirectional, bool batch_first) {
  std::tie(output, hy, cy) = cudnn_impl(input, {}, hx[0], hx[1], params, has_biases, cudnn::RnnMode::kLstm,
                                        num_layers, dropout, train, bidirectional, batch_first);
}

void lstm_packed(Tensor& output, Tensor& hy, Tensor& cy, const Tensor& data, const Tensor& batch_sizes,
                 at::TensorList hx, at::TensorList params, bool has_biases, int64_t num_layers, double dropout,
                 bool train, bool bidirectional) {
  std::tie(output, hy, cy) = cudnn_impl(data, batch_sizes, hx[0], hx[1], params, has_biases, cudnn::RnnMode::kLstm,
                                        num_layers, dropout, train, bidirectional, /*batch_first=*/false);
}

const bool registered = [] {
  using cudnn::RnnMode;
  using torch_core::engine::set_slot;
  constexpr auto kCuda = c10::DeviceType::CUDA;
  set_slot(at::native::lstm_cudnn_stub, kCuda, &lstm);
  set_slot(at::native::lstm_packed_cudnn_stub, kCuda, &lstm_packed);
  set_slot(at::native::gru_cudnn_stub, kCuda, &one_hidden<RnnMode::kGru>);
  set_slot(at::native::gru_packed_cudnn_stub, kCuda, &one_hidden_packed<RnnMode::kGru>);
  set_slot(at::native::rnn_tanh_cudnn_stub, kCuda, &one_hidden<RnnMode::kTanh>);
  set_slot(at::native::rnn_tanh_packed_cudnn_stub, kCuda, &one_hidden_packed<RnnMode::kTanh>);
  set_slot(at::native::rnn_relu_cudnn_stub, kCuda, &one_hidden<RnnMode::kRelu>);
  set_slot(at::native::rnn_relu_packed_cudnn_stub, kCuda, &one_hidden_packed<RnnMode::kRelu>);
  return true;
}();

}  // namespace
}  // namespace torch_cuda::native
