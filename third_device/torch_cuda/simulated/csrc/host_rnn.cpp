// The simulated variant's executor of rnn_plan.h's plans: the calls cuDNN's RNN API would
// make, run on the host on the stream's worker with cuDNN's documented cell equations
// (linear layer ids 0-3 of an LSTM are the input, forget, cell and output gates; 0-2 of a
// GRU the reset, update and new gates, the new gate's recurrent part scaled by the reset
// gate after its bias; double bias), layers in sequence, a bidirectional layer's reverse
// direction running each sequence from its own last step, and dropout (training only) on
// every layer's output but the last. The weight space (host_rnn_layout.h) is this
// executor's own: weight_params is the only way the operators find its parts, as with cuDNN.
//
// Training keeps, per pseudo-layer and row, the gates and states in the reserve (in double)
// for the backward passes; backward data also leaves its pre-activation gradients there,
// which backward weights reads (and so must follow it, as with cuDNN). Dropout draws from
// the state init_dropout_state seeded, advancing it with each training call. Sums are in
// double, rounded once to the data type; float matrix operands are rounded to TF32 when the
// plan's math type allows it. Runs are recorded under the cuDNN calls they stand in for.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include "third_device/torch_cuda/simulated/csrc/host_index.h"
#include "third_device/torch_cuda/simulated/csrc/host_rnn_layout.h"
#include "third_device/torch_cuda/simulated/csrc/library_calls.h"
#include "third_device/torch_cuda/simulated/csrc/tf32.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/rnn_executable.h"
#include "torch_core/csrc/simulated/simulated_device.h"

namespace torch_cuda::cudnn {
namespace {

using Doubles = std::vector<double>;
using host_rnn::Layout;
using host_rnn::Record;

// The dropout state: a seed and the number of training calls that drew from it.
struct DropoutState {
  std::uint64_t seed;
  std::uint64_t draws;
};

std::uint64_t mix(std::uint64_t z) {  // splitmix64's finaliser
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }

template <typename T>
class HostRnn final : public RnnExecutable {
 public:
  HostRnn(const RnnPlan& plan, void* dropout_state) : plan_(plan), dropout_state_(dropout_state) {}

  std::int64_t weight_space_size() const override { return Layout(plan_).weights() * sizeof(T); }

  WeightRegion weight_params(const void* weight_space, int q, int lin) const override {
    const Layout layout(plan_);
    if (q < 0 || q >= plan_.pseudo_layers()) throw std::invalid_argument("pseudo-layer out of range");
    T* base = static_cast<T*>(const_cast<void*>(weight_space));
    const int g = plan_.gates;
    WeightRegion region;
    if (lin >= 0 && lin < 2 * g) {
      const bool input = lin < g;
      const int gate = input ? lin : lin - g;
      region.matrix = base + (input ? layout.w(q, gate) : layout.r(q, gate));
      region.rows = plan_.hidden_size;
      region.columns = input ? layout.input_of(q) : plan_.proj_size;
      region.bias = base + (input ? layout.bias_w(q, gate) : layout.bias_r(q, gate));
      region.bias_size = plan_.hidden_size;
    } else if (lin == kProjectionLinLayer && plan_.projected()) {
      region.matrix = base + layout.proj(q);
      region.rows = plan_.proj_size;
      region.columns = plan_.hidden_size;
    } else {
      throw std::invalid_argument("no linear layer " + std::to_string(lin) + " in this RNN");
    }
    return region;
  }

  std::int64_t workspace_size() const override { return 0; }
  std::int64_t reserve_size() const override {
    return plan_.train ? Layout(plan_).reserve_doubles() * static_cast<std::int64_t>(sizeof(double)) : 0;
  }

  void forward(const RnnBuffers& b, torch_core::StreamHandle stream) const override {
    simulated::record_library_call("cudnnRNNForward");
    enqueue(stream, [b](const HostRnn& self) { self.run_forward(b); });
  }
  void backward_data(const RnnBuffers& b, torch_core::StreamHandle stream) const override {
    simulated::record_library_call("cudnnRNNBackwardData_v8");
    enqueue(stream, [b](const HostRnn& self) { self.run_backward_data(b); });
  }
  void backward_weights(const RnnBuffers& b, torch_core::StreamHandle stream) const override {
    simulated::record_library_call("cudnnRNNBackwardWeights_v8");
    enqueue(stream, [b](const HostRnn& self) { self.run_backward_weights(b); });
  }

 private:
  // The work runs on the stream's worker, perhaps after this executable is gone: on a copy.
  template <typename Work>
  void enqueue(torch_core::StreamHandle stream, Work work) const {
    auto self = std::make_shared<const HostRnn>(*this);
    torch_core::simulated_device::enqueue(c10::DeviceType::CUDA, stream, [self, work] { work(*self); });
  }

  static Doubles load(const void* data, std::int64_t count) {
    Doubles values(count, 0.0);
    if (data == nullptr) return values;
    for (std::int64_t i = 0; i < count; ++i) values[i] = simulated::load_element<T>(data, i);
    return values;
  }
  static void store(void* data, const Doubles& values) {
    if (data == nullptr) return;
    for (std::size_t i = 0; i < values.size(); ++i) simulated::store_element<T>(data, i, values[i]);
  }

  bool tf32() const { return plan_.data_type == DataType::kFloat && plan_.math_type == MathType::kDefault; }
  double operand(double v) const {
    return tf32() ? static_cast<double>(simulated::round_to_tf32(static_cast<float>(v))) : v;
  }

  // The weight space in double, matrices rounded as the math type rounds operands.
  Doubles weights(const void* data) const {
    Doubles w = load(data, Layout(plan_).weights());
    if (!tf32()) return w;
    const Layout layout(plan_);
    for (int q = 0; q < plan_.pseudo_layers(); ++q) {
      for (std::int64_t i = layout.w(q, 0); i < layout.bias_w(q, 0); ++i) w[i] = operand(w[i]);
    }
    return w;
  }

  std::vector<std::int64_t> row_starts() const {
    std::vector<std::int64_t> starts;
    std::int64_t row = 0;
    for (const int size : plan_.batch_sizes) {
      starts.push_back(row);
      row += size;
    }
    return starts;
  }

  // The step before `t` in direction `d` for sequence `s`, or -1 at its first step.
  int previous_step(int d, int t, int s) const {
    if (d == 0) return t - 1;
    return t + 1 < plan_.seq_lengths[s] ? t + 1 : -1;
  }
  int step_at(int d, int i) const { return d == 0 ? i : plan_.max_seq_length - 1 - i; }

  // Sequence s's state (`size` values at `field` of a record) before step t of direction d
  // in pseudo-layer q: the step before's, or the initial one.
  const double* before(const Layout& layout, const double* reserve, const std::vector<std::int64_t>& starts, int q,
                       int d, int t, int s, const Doubles& initial, std::int64_t size, std::int64_t field) const {
    const int step = previous_step(d, t, s);
    if (step < 0) return &initial[(q * plan_.batch + s) * size];
    return reserve + layout.record(q, starts[step] + s) + field;
  }

  void run_forward(const RnnBuffers& b) const;
  void run_backward_data(const RnnBuffers& b) const;
  void run_backward_weights(const RnnBuffers& b) const;

  // The input rows of `layer`: x, or the layer below's outputs after dropout.
  Doubles layer_input(int layer, const Doubles& x, const double* reserve) const {
    if (layer == 0) return x;
    const Layout layout(plan_);
    const Record rec(plan_);
    const int width = plan_.directions * plan_.proj_size;
    Doubles in(plan_.rows * width);
    for (std::int64_t row = 0; row < plan_.rows; ++row) {
      for (int d = 0; d < plan_.directions; ++d) {
        const double* out = reserve + layout.record((layer - 1) * plan_.directions + d, row) + rec.out;
        for (int k = 0; k < plan_.proj_size; ++k) {
          const std::int64_t i = row * width + d * plan_.proj_size + k;
          in[i] = out[k] * (plan_.dropout > 0 ? reserve[layout.mask(layer - 1, row) + d * plan_.proj_size + k] : 1.0);
        }
      }
    }
    return in;
  }

  RnnPlan plan_;
  void* dropout_state_;
};

template <typename T>
void HostRnn<T>::run_forward(const RnnBuffers& b) const {
  const RnnPlan& p = plan_;
  const Layout layout(p);
  const Record rec(p);
  const std::int64_t H = p.hidden_size, P = p.proj_size, G = p.gates;
  Doubles scratch;
  double* reserve = static_cast<double*>(b.reserve);
  if (!p.train) {
    scratch.assign(layout.reserve_doubles(), 0.0);
    reserve = scratch.data();
  }
  const Doubles w = weights(b.weights);
  const Doubles hx = load(b.hx, std::int64_t{p.pseudo_layers()} * p.batch * P);
  const Doubles cx = load(b.cx, std::int64_t{p.pseudo_layers()} * p.batch * H);
  Doubles hy(hx.size()), cy(cx.size());
  std::uint64_t draw = 0;
  if (p.train && p.dropout > 0) {
    // Calls on several streams may draw at once (cuDNN orders them by the state's event).
    auto* state = static_cast<DropoutState*>(dropout_state_);
    draw = mix(state->seed ^ mix(__atomic_add_fetch(&state->draws, 1, __ATOMIC_RELAXED)));
  }
  const auto starts = row_starts();
  Doubles input = load(b.x, p.rows * p.input_size);
  for (int layer = 0; layer < p.num_layers; ++layer) {
    const std::int64_t in = p.layer_input_size(layer);
    const Doubles x = layer_input(layer, input, reserve);
    for (int d = 0; d < p.directions; ++d) {
      const int q = layer * p.directions + d;
      Doubles h(hx.begin() + q * p.batch * P, hx.begin() + (q + 1) * p.batch * P);
      Doubles c(cx.begin() + q * p.batch * H, cx.begin() + (q + 1) * p.batch * H);
      for (int i = 0; i < p.max_seq_length; ++i) {
        const int t = step_at(d, i);
        for (int s = 0; s < p.batch_sizes[t]; ++s) {
          const std::int64_t row = starts[t] + s;
          double* r = reserve + layout.record(q, row);
          const double* hs = h.data() + s * P;
          Doubles pre_x(G * H), pre_h(G * H);
          for (int g = 0; g < G; ++g) {
            for (std::int64_t j = 0; j < H; ++j) {
              double sx = w[layout.bias_w(q, g) + j], sh = w[layout.bias_r(q, g) + j];
              for (std::int64_t m = 0; m < in; ++m) sx += w[layout.w(q, g) + j * in + m] * operand(x[row * in + m]);
              for (std::int64_t k = 0; k < P; ++k) sh += w[layout.r(q, g) + j * P + k] * operand(hs[k]);
              pre_x[g * H + j] = sx;
              pre_h[g * H + j] = sh;
            }
          }
          double* act = r + rec.act;
          double* out = r + rec.out;
          for (std::int64_t j = 0; j < H; ++j) {
            switch (p.mode) {
              case RnnMode::kRelu:
                act[j] = std::max(0.0, pre_x[j] + pre_h[j]);
                out[j] = act[j];
                break;
              case RnnMode::kTanh:
                act[j] = std::tanh(pre_x[j] + pre_h[j]);
                out[j] = act[j];
                break;
              case RnnMode::kGru: {
                const double reset = sigmoid(pre_x[j] + pre_h[j]);
                const double update = sigmoid(pre_x[H + j] + pre_h[H + j]);
                const double fresh = std::tanh(pre_x[2 * H + j] + reset * pre_h[2 * H + j]);
                act[j] = reset;
                act[H + j] = update;
                act[2 * H + j] = fresh;
                r[rec.aux + j] = pre_h[2 * H + j];
                out[j] = (1.0 - update) * fresh + update * hs[j];
                break;
              }
              case RnnMode::kLstm: {
                for (int g = 0; g < 4; ++g) {
                  const double v = pre_x[g * H + j] + pre_h[g * H + j];
                  act[g * H + j] = g == 2 ? std::tanh(v) : sigmoid(v);
                }
                const double cell = act[H + j] * c[s * H + j] + act[j] * act[2 * H + j];
                r[rec.cell + j] = cell;
                r[rec.aux + j] = std::tanh(cell);
                r[rec.unprojected + j] = act[3 * H + j] * r[rec.aux + j];
                c[s * H + j] = cell;
                break;
              }
            }
          }
          if (p.mode == RnnMode::kLstm) {
            for (std::int64_t k = 0; k < P; ++k) {
              if (!p.projected()) {
                out[k] = r[rec.unprojected + k];
                continue;
              }
              double sum = 0;
              for (std::int64_t j = 0; j < H; ++j) {
                sum += w[layout.proj(q) + k * H + j] * operand(r[rec.unprojected + j]);
              }
              out[k] = sum;
            }
          }
          for (std::int64_t k = 0; k < P; ++k) h[s * P + k] = out[k];
        }
      }
      std::copy(h.begin(), h.end(), hy.begin() + q * p.batch * P);
      if (p.mode == RnnMode::kLstm) std::copy(c.begin(), c.end(), cy.begin() + q * p.batch * H);
    }
    if (layer + 1 < p.num_layers && p.dropout > 0) {
      const std::int64_t width = p.directions * P;
      for (std::int64_t i = 0; i < p.rows * width; ++i) {
        const std::uint64_t bits = mix(draw ^ mix((layer + 1) * 0x9e3779b97f4a7c15ull + i));
        const double u = static_cast<double>(bits >> 11) * 0x1.0p-53;  // uniform in [0, 1)
        reserve[layout.mask(layer, 0) + i] = u < p.dropout ? 0.0 : 1.0 / (1.0 - p.dropout);
      }
    }
  }
  Doubles y(p.rows * p.directions * P);
  const int last = p.num_layers - 1;
  for (std::int64_t row = 0; row < p.rows; ++row) {
    for (int d = 0; d < p.directions; ++d) {
      const double* out = reserve + layout.record(last * p.directions + d, row) + rec.out;
      std::copy(out, out + P, y.begin() + (row * p.directions + d) * P);
    }
  }
  store(b.y, y);
  store(b.hy, hy);
  if (p.mode == RnnMode::kLstm) store(b.cy, cy);
}

template <typename T>
void HostRnn<T>::run_backward_data(const RnnBuffers& b) const {
  const RnnPlan& p = plan_;
  const Layout layout(p);
  const Record rec(p);
  const std::int64_t H = p.hidden_size, P = p.proj_size, G = p.gates;
  double* reserve = static_cast<double*>(b.reserve);
  const Doubles w = weights(b.weights);
  const Doubles hx = load(b.hx, std::int64_t{p.pseudo_layers()} * p.batch * P);
  const Doubles cx = load(b.cx, std::int64_t{p.pseudo_layers()} * p.batch * H);
  const Doubles dhy = load(b.dhy, hx.size());
  const Doubles dcy = load(b.dcy, cx.size());
  Doubles dhx(hx.size()), dcx(cx.size());
  const auto starts = row_starts();
  const std::int64_t width = p.directions * P;
  Doubles d_out = load(b.dy, p.rows * width);
  for (int layer = p.num_layers - 1; layer >= 0; --layer) {
    const std::int64_t in = p.layer_input_size(layer);
    Doubles d_in(p.rows * in, 0.0);
    for (int d = 0; d < p.directions; ++d) {
      const int q = layer * p.directions + d;
      Doubles dh(dhy.begin() + q * p.batch * P, dhy.begin() + (q + 1) * p.batch * P);
      Doubles dc(dcy.begin() + q * p.batch * H, dcy.begin() + (q + 1) * p.batch * H);
      for (int i = p.max_seq_length - 1; i >= 0; --i) {
        const int t = step_at(d, i);
        for (int s = 0; s < p.batch_sizes[t]; ++s) {
          const std::int64_t row = starts[t] + s;
          double* r = reserve + layout.record(q, row);
          const double* h_prev = before(layout, reserve, starts, q, d, t, s, hx, P, rec.out);
          const double* c_prev = before(layout, reserve, starts, q, d, t, s, cx, H, rec.cell);
          double* dout = r + rec.dout;
          for (std::int64_t k = 0; k < P; ++k) dout[k] = dh[s * P + k] + d_out[row * width + d * P + k];
          double* dpre = r + rec.dpre;
          const double* act = r + rec.act;
          Doubles dh_prev(P, 0.0);
          for (std::int64_t j = 0; j < H; ++j) {
            switch (p.mode) {
              case RnnMode::kRelu:
                dpre[j] = act[j] > 0 ? dout[j] : 0.0;
                break;
              case RnnMode::kTanh:
                dpre[j] = dout[j] * (1.0 - act[j] * act[j]);
                break;
              case RnnMode::kGru: {
                const double reset = act[j], update = act[H + j], fresh = act[2 * H + j];
                const double d_fresh = dout[j] * (1.0 - update) * (1.0 - fresh * fresh);
                dpre[2 * H + j] = d_fresh;
                dpre[H + j] = dout[j] * (h_prev[j] - fresh) * update * (1.0 - update);
                dpre[j] = d_fresh * r[rec.aux + j] * reset * (1.0 - reset);
                r[rec.daux + j] = d_fresh * reset;
                dh_prev[j] += dout[j] * update;
                break;
              }
              case RnnMode::kLstm: {
                double d_unprojected = 0;
                if (p.projected()) {
                  for (std::int64_t k = 0; k < P; ++k) d_unprojected += w[layout.proj(q) + k * H + j] * dout[k];
                } else {
                  d_unprojected = dout[j];
                }
                const double in_gate = act[j], forget = act[H + j], cand = act[2 * H + j], out_gate = act[3 * H + j];
                const double tanh_cell = r[rec.aux + j];
                const double d_cell = dc[s * H + j] + d_unprojected * out_gate * (1.0 - tanh_cell * tanh_cell);
                dpre[j] = d_cell * cand * in_gate * (1.0 - in_gate);
                dpre[H + j] = d_cell * c_prev[j] * forget * (1.0 - forget);
                dpre[2 * H + j] = d_cell * in_gate * (1.0 - cand * cand);
                dpre[3 * H + j] = d_unprojected * tanh_cell * out_gate * (1.0 - out_gate);
                dc[s * H + j] = d_cell * forget;
                break;
              }
            }
          }
          for (int g = 0; g < G; ++g) {
            const bool gru_fresh = p.mode == RnnMode::kGru && g == 2;
            for (std::int64_t j = 0; j < H; ++j) {
              const double grad_h = gru_fresh ? r[rec.daux + j] : dpre[g * H + j];
              for (std::int64_t k = 0; k < P; ++k) dh_prev[k] += w[layout.r(q, g) + j * P + k] * grad_h;
              for (std::int64_t m = 0; m < in; ++m) {
                d_in[row * in + m] += w[layout.w(q, g) + j * in + m] * dpre[g * H + j];
              }
            }
          }
          std::copy(dh_prev.begin(), dh_prev.end(), dh.begin() + s * P);
        }
      }
      std::copy(dh.begin(), dh.end(), dhx.begin() + q * p.batch * P);
      if (p.mode == RnnMode::kLstm) std::copy(dc.begin(), dc.end(), dcx.begin() + q * p.batch * H);
    }
    if (layer > 0 && p.dropout > 0) {
      for (std::int64_t i = 0; i < p.rows * in; ++i) d_in[i] *= reserve[layout.mask(layer - 1, 0) + i];
    }
    d_out = std::move(d_in);
  }
  store(b.dx, d_out);
  store(b.dhx, dhx);
  if (p.mode == RnnMode::kLstm) store(b.dcx, dcx);
}

template <typename T>
void HostRnn<T>::run_backward_weights(const RnnBuffers& b) const {
  const RnnPlan& p = plan_;
  const Layout layout(p);
  const Record rec(p);
  const std::int64_t H = p.hidden_size, P = p.proj_size, G = p.gates;
  const double* reserve = static_cast<const double*>(b.reserve);
  const Doubles hx = load(b.hx, std::int64_t{p.pseudo_layers()} * p.batch * P);
  Doubles dw = load(b.dweights, layout.weights());
  const auto starts = row_starts();
  const Doubles x0 = load(b.x, p.rows * p.input_size);
  for (int layer = 0; layer < p.num_layers; ++layer) {
    const std::int64_t in = p.layer_input_size(layer);
    const Doubles x = layer_input(layer, x0, reserve);
    for (int d = 0; d < p.directions; ++d) {
      const int q = layer * p.directions + d;
      for (int t = 0; t < p.max_seq_length; ++t) {
        for (int s = 0; s < p.batch_sizes[t]; ++s) {
          const std::int64_t row = starts[t] + s;
          const double* r = reserve + layout.record(q, row);
          const double* h_prev = before(layout, reserve, starts, q, d, t, s, hx, P, rec.out);
          for (int g = 0; g < G; ++g) {
            const bool gru_fresh = p.mode == RnnMode::kGru && g == 2;
            for (std::int64_t j = 0; j < H; ++j) {
              const double grad_x = r[rec.dpre + g * H + j];
              const double grad_h = gru_fresh ? r[rec.daux + j] : grad_x;
              for (std::int64_t m = 0; m < in; ++m) {
                dw[layout.w(q, g) + j * in + m] += grad_x * operand(x[row * in + m]);
              }
              for (std::int64_t k = 0; k < P; ++k) dw[layout.r(q, g) + j * P + k] += grad_h * operand(h_prev[k]);
              dw[layout.bias_w(q, g) + j] += grad_x;
              dw[layout.bias_r(q, g) + j] += grad_h;
            }
          }
          if (p.projected()) {
            for (std::int64_t k = 0; k < P; ++k) {
              for (std::int64_t j = 0; j < H; ++j) {
                dw[layout.proj(q) + k * H + j] += r[rec.dout + k] * operand(r[rec.unprojected + j]);
              }
            }
          }
        }
      }
    }
  }
  store(b.dweights, dw);
}

}  // namespace

std::unique_ptr<RnnExecutable> make_rnn_executable(const RnnPlan& plan, void* dropout_state,
                                                   std::int64_t dropout_state_bytes) {
  if (plan.train && plan.dropout > 0 &&
      (dropout_state == nullptr || dropout_state_bytes < static_cast<std::int64_t>(sizeof(DropoutState)))) {
    throw std::invalid_argument("cuDNN RNN: training with dropout needs a dropout state (_cudnn_init_dropout_state)");
  }
  switch (plan.data_type) {
    case DataType::kHalf:
      return std::make_unique<HostRnn<c10::Half>>(plan, dropout_state);
    case DataType::kBFloat16:
      return std::make_unique<HostRnn<c10::BFloat16>>(plan, dropout_state);
    case DataType::kFloat:
      return std::make_unique<HostRnn<float>>(plan, dropout_state);
    case DataType::kDouble:
      return std::make_unique<HostRnn<double>>(plan, dropout_state);
  }
  throw std::invalid_argument("cuDNN RNN: unknown data type");
}

std::int64_t dropout_state_size() { return sizeof(DropoutState); }

void init_dropout_state(void* state, std::int64_t bytes, float /*dropout*/, std::uint64_t seed,
                        torch_core::StreamHandle stream) {
  if (bytes < static_cast<std::int64_t>(sizeof(DropoutState))) {
    throw std::invalid_argument("cuDNN dropout state: " + std::to_string(bytes) + " bytes is too small");
  }
  simulated::record_library_call("cudnnSetDropoutDescriptor");
  torch_core::simulated_device::enqueue(c10::DeviceType::CUDA, stream, [state, seed] {
    const DropoutState initial{seed, 0};
    std::memcpy(state, &initial, sizeof(initial));
  });
}

}  // namespace torch_cuda::cudnn
