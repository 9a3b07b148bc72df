// The cuDNN RNN plans and executor (third_device/torch_cuda/torch_cuda/csrc/aten/cudnn),
// torch-free.
//
// Everywhere: plan_rnn's checks (per-sequence lengths from the steps' batch sizes, math
// types, refusals). With a GPU: the forward of a ReLU, tanh, LSTM and GRU cell over three
// steps, float and double, against the cell equations computed on the host with the weights
// placed where cudnnGetRNNWeightParams says; one tanh step's backward (data and weights)
// against its gradients by definition. Without one: says why, and checks that making an
// executable fails with a clear error.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/gpu/cudnn_engines.h"
#include "tests/gpu/test_util.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/cudnn_version.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/rnn_executable.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/rnn_plan.h"

namespace {

using gpu_test::check;
using gpu_test::contains;
using gpu_test::converted;
using gpu_test::worst_error;
namespace cudnn = torch_cuda::cudnn;
using cudnn::DataType;
using cudnn::RnnMode;

constexpr int kInput = 2, kHidden = 3, kSteps = 3, kBatch = 2;

cudnn::RnnCall call_of(RnnMode mode, std::vector<std::int64_t> batch_sizes, DataType type = DataType::kFloat) {
  cudnn::RnnCall call;
  call.mode = mode;
  call.data_type = type;
  call.input_size = kInput;
  call.hidden_size = kHidden;
  call.batch_sizes = std::move(batch_sizes);
  call.train = true;
  return call;
}

std::string refusal(const cudnn::RnnCall& call, const std::string& what) {
  return gpu_test::thrown<std::invalid_argument>([&] { cudnn::plan_rnn(call); }, what);
}

void plan_checks() {
  cudnn::RnnCall call = call_of(RnnMode::kLstm, {3, 2, 2, 1});
  call.packed = true;
  const cudnn::RnnPlan plan = cudnn::plan_rnn(call);
  check(plan.seq_lengths == std::vector<int>{4, 3, 1}, "each sequence's length from the steps' batch sizes");
  check(plan.rows == 8 && plan.batch == 3 && plan.max_seq_length == 4, "rows, batch and steps");
  check(plan.gates == 4 && plan.proj_size == kHidden && !plan.projected(), "an LSTM without projection");
  check(plan.math_type == cudnn::MathType::kDefault, "float may use TF32 by default");
  call.allow_tf32 = false;
  check(cudnn::plan_rnn(call).math_type == cudnn::MathType::kFma, "allow_tf32 off: plain float math");
  check(cudnn::plan_rnn(call_of(RnnMode::kGru, {1}, DataType::kHalf)).compute_type == DataType::kFloat,
        "half computes in float");
  check(contains(refusal(call_of(RnnMode::kLstm, {1, 2}), "increasing"), "non-increasing"),
        "unsorted sequences refused");
  cudnn::RnnCall projected = call_of(RnnMode::kGru, {1});
  projected.proj_size = 2;
  check(contains(refusal(projected, "GRU projection"), "only LSTM"), "a GRU with a projection refused");
  projected.mode = RnnMode::kLstm;
  projected.proj_size = kHidden;
  check(contains(refusal(projected, "wide projection"), "proj_size"), "a projection as wide as the cell refused");
  check(contains(refusal(call_of(RnnMode::kTanh, {}), "no steps"), "no time steps"), "an empty input refused");
}

// The headers' version, and the loaded library's or, where cuDNN's sub-libraries are not
// loadable yet (here, before the device checks load the engines), an error saying what to
// install: never the abort cuDNN's forwarding library gives.
void version_checks() {
  check(cudnn::compile_version() / 10000 == 9, "compiled against cuDNN 9");
  try {
    check(cudnn::runtime_version() / 10000 == cudnn::compile_version() / 10000, "runs the major it was built with");
  } catch (const std::runtime_error& error) {
    check(contains(error.what(), "install the nvidia-cudnn-cu13 wheel"), std::string("says what to install: ") +
                                                                             error.what());
  }
}

// ---- device -------------------------------------------------------------------------------

double sigmoid(double v) { return 1 / (1 + std::exp(-v)); }

// The cell's weights by gate, as the host reference reads them.
struct Weights {
  std::vector<std::vector<double>> w, r, bw, br;  // [gate][row-major H x I | H x H | H]
};

// Fills the weight space at the places weight_params names (gate g's input and recurrent
// matrices and biases) with deterministic values, returning them by gate.
template <typename T>
Weights place_weights(const cudnn::RnnExecutable& e, const cudnn::RnnPlan& plan, gpu_test::DeviceBuffer<T>& space,
                      std::size_t elements) {
  std::vector<double> host(elements, 0.0);
  Weights weights;
  const auto offset = [&](void* at) { return static_cast<std::size_t>(static_cast<T*>(at) - space.get()); };
  for (int g = 0; g < 2 * plan.gates; ++g) {
    const cudnn::WeightRegion region = e.weight_params(space.get(), 0, g);
    check(region.rows == kHidden && region.columns == (g < plan.gates ? kInput : kHidden) &&
              region.bias_size == kHidden,
          "linear layer " + std::to_string(g) + "'s shape");
    std::vector<double> matrix(region.rows * region.columns), bias(kHidden);
    for (std::size_t i = 0; i < matrix.size(); ++i) {
      matrix[i] = host[offset(region.matrix) + i] = static_cast<double>((i * 7 + g * 3) % 11) / 10.0 - 0.5;
    }
    for (std::size_t i = 0; i < bias.size(); ++i) {
      bias[i] = host[offset(region.bias) + i] = static_cast<double>((i + g) % 5) / 10.0 - 0.2;
    }
    (g < plan.gates ? weights.w : weights.r).push_back(matrix);
    (g < plan.gates ? weights.bw : weights.br).push_back(bias);
  }
  const std::vector<T> values = converted<T>(host);
  gpu_test::cuda_ok(cudaMemcpy(space.get(), values.data(), elements * sizeof(T), cudaMemcpyHostToDevice), "weights");
  return weights;
}

// One gate's pre-activation parts for batch entry b: input and recurrent, biases included.
void gate(const Weights& w, int g, const double* x, const double* h, std::vector<double>& in,
          std::vector<double>& rec) {
  for (int j = 0; j < kHidden; ++j) {
    in[j] = w.bw[g][j];
    rec[j] = w.br[g][j];
    for (int m = 0; m < kInput; ++m) in[j] += w.w[g][j * kInput + m] * x[m];
    for (int k = 0; k < kHidden; ++k) rec[j] += w.r[g][j * kHidden + k] * h[k];
  }
}

// y over the steps, then hy and cy, by the cell equations.
std::vector<double> reference(RnnMode mode, const Weights& w, const std::vector<double>& x, std::vector<double> h,
                              std::vector<double> c) {
  std::vector<double> y;
  std::vector<std::vector<double>> in(4, std::vector<double>(kHidden)), rec = in;
  for (int t = 0; t < kSteps; ++t) {
    for (int b = 0; b < kBatch; ++b) {
      const double* xt = &x[(t * kBatch + b) * kInput];
      double* hb = &h[b * kHidden];
      const int gates = mode == RnnMode::kLstm ? 4 : mode == RnnMode::kGru ? 3 : 1;
      for (int g = 0; g < gates; ++g) gate(w, g, xt, hb, in[g], rec[g]);
      for (int j = 0; j < kHidden; ++j) {
        if (mode == RnnMode::kTanh || mode == RnnMode::kRelu) {
          const double v = in[0][j] + rec[0][j];
          hb[j] = mode == RnnMode::kTanh ? std::tanh(v) : std::max(0.0, v);
        } else if (mode == RnnMode::kGru) {
          const double r = sigmoid(in[0][j] + rec[0][j]), z = sigmoid(in[1][j] + rec[1][j]);
          const double n = std::tanh(in[2][j] + r * rec[2][j]);
          hb[j] = (1 - z) * n + z * hb[j];
        } else {
          const double i = sigmoid(in[0][j] + rec[0][j]), f = sigmoid(in[1][j] + rec[1][j]),
                       g = std::tanh(in[2][j] + rec[2][j]), o = sigmoid(in[3][j] + rec[3][j]);
          c[b * kHidden + j] = f * c[b * kHidden + j] + i * g;
          hb[j] = o * std::tanh(c[b * kHidden + j]);
        }
      }
      y.insert(y.end(), hb, hb + kHidden);
    }
  }
  y.insert(y.end(), h.begin(), h.end());
  y.insert(y.end(), c.begin(), c.end());
  return y;
}

std::vector<double> values(std::size_t n, int seed) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<double>((i * 5 + seed) % 9) / 8.0 - 0.5;
  return v;
}

template <typename T>
void forward_case(RnnMode mode, DataType type, cudaStream_t stream, const std::string& name) {
  const cudnn::RnnPlan plan = cudnn::plan_rnn(call_of(mode, std::vector<std::int64_t>(kSteps, kBatch), type));
  const auto e = cudnn::make_rnn_executable(plan, nullptr, 0);
  const std::size_t elements = e->weight_space_size() / sizeof(T);
  gpu_test::DeviceBuffer<T> space{std::vector<T>(elements)};
  const Weights w = place_weights(*e, plan, space, elements);
  const auto x = values(kSteps * kBatch * kInput, 1), hx = values(kBatch * kHidden, 2),
             cx = values(kBatch * kHidden, 3);
  gpu_test::DeviceBuffer<T> d_x(converted<T>(x)), d_hx(converted<T>(hx)), d_cx(converted<T>(cx)),
      d_y{std::vector<T>(kSteps * kBatch * kHidden)}, d_hy{std::vector<T>(kBatch * kHidden)},
      d_cy{std::vector<T>(kBatch * kHidden)};
  gpu_test::DeviceBuffer<char> work{std::vector<char>(e->workspace_size())},
      reserve{std::vector<char>(e->reserve_size())};
  cudnn::RnnBuffers b;
  b.x = d_x.get();
  b.y = d_y.get();
  b.hx = d_hx.get();
  b.hy = d_hy.get();
  if (mode == RnnMode::kLstm) {
    b.cx = d_cx.get();
    b.cy = d_cy.get();
  }
  b.weights = space.get();
  b.workspace = work.get();
  b.reserve = reserve.get();
  e->forward(b, stream);
  gpu_test::cuda_ok(cudaStreamSynchronize(stream), "sync");
  std::vector<double> want = reference(mode, w, x, hx, cx);
  const double tolerance = type == DataType::kDouble ? 1e-9 : 1e-4;
  const auto part = [&](std::size_t from, std::size_t n) {
    return std::vector<double>(want.begin() + from, want.begin() + from + n);
  };
  const std::size_t ny = kSteps * kBatch * kHidden, nh = kBatch * kHidden;
  check(worst_error(d_y.to_host(), part(0, ny)) <= tolerance, name + ": output");
  check(worst_error(d_hy.to_host(), part(ny, nh)) <= tolerance, name + ": final hidden state");
  if (mode == RnnMode::kLstm) check(worst_error(d_cy.to_host(), part(ny + nh, nh)) <= tolerance, name + ": final cell");
}

// One tanh step, h = tanh(W x + bW + R hx + bR), with dy on its output: dx = W^T g, dhx =
// R^T g, dW = g x^T, dR = g hx^T, dbW = dbR = sum g, where g = dy * (1 - h^2).
void backward_case(cudaStream_t stream) {
  const cudnn::RnnPlan plan = cudnn::plan_rnn(call_of(RnnMode::kTanh, {kBatch}, DataType::kDouble));
  const auto e = cudnn::make_rnn_executable(plan, nullptr, 0);
  const std::size_t elements = e->weight_space_size() / sizeof(double);
  gpu_test::DeviceBuffer<double> space{std::vector<double>(elements)}, grads{std::vector<double>(elements)};
  const Weights w = place_weights(*e, plan, space, elements);
  const auto x = values(kBatch * kInput, 4), hx = values(kBatch * kHidden, 5), dy = values(kBatch * kHidden, 6);
  gpu_test::DeviceBuffer<double> d_x(x), d_hx(hx), d_y{std::vector<double>(kBatch * kHidden)}, d_dy(dy),
      d_dhy{std::vector<double>(kBatch * kHidden)}, d_hy{std::vector<double>(kBatch * kHidden)},
      d_dx{std::vector<double>(kBatch * kInput)}, d_dhx{std::vector<double>(kBatch * kHidden)};
  gpu_test::DeviceBuffer<char> work{std::vector<char>(e->workspace_size())},
      reserve{std::vector<char>(e->reserve_size())};
  cudnn::RnnBuffers b;
  b.x = d_x.get();
  b.y = d_y.get();
  b.hx = d_hx.get();
  b.hy = d_hy.get();
  b.dy = d_dy.get();
  b.dhy = d_dhy.get();
  b.dx = d_dx.get();
  b.dhx = d_dhx.get();
  b.weights = space.get();
  b.dweights = grads.get();
  b.workspace = work.get();
  b.reserve = reserve.get();
  e->forward(b, stream);
  e->backward_data(b, stream);
  e->backward_weights(b, stream);
  gpu_test::cuda_ok(cudaStreamSynchronize(stream), "sync");
  std::vector<double> want_dx(kBatch * kInput), want_dhx(kBatch * kHidden);
  std::vector<double> in(kHidden), rec(kHidden), g(kBatch * kHidden);
  for (int s = 0; s < kBatch; ++s) {
    gate(w, 0, &x[s * kInput], &hx[s * kHidden], in, rec);
    for (int j = 0; j < kHidden; ++j) {
      const double h = std::tanh(in[j] + rec[j]);
      g[s * kHidden + j] = dy[s * kHidden + j] * (1 - h * h);
      for (int m = 0; m < kInput; ++m) want_dx[s * kInput + m] += w.w[0][j * kInput + m] * g[s * kHidden + j];
      for (int k = 0; k < kHidden; ++k) want_dhx[s * kHidden + k] += w.r[0][j * kHidden + k] * g[s * kHidden + j];
    }
  }
  check(worst_error(d_dx.to_host(), want_dx) <= 1e-9, "tanh step: input gradient");
  check(worst_error(d_dhx.to_host(), want_dhx) <= 1e-9, "tanh step: initial state gradient");
  const std::vector<double> dw = grads.to_host();
  const cudnn::WeightRegion input = e->weight_params(grads.get(), 0, 0);
  double worst = 0;
  for (int j = 0; j < kHidden; ++j) {
    double bias = 0;
    for (int s = 0; s < kBatch; ++s) bias += g[s * kHidden + j];
    worst = std::max(worst, std::fabs(dw[static_cast<double*>(input.bias) - grads.get() + j] - bias));
    for (int m = 0; m < kInput; ++m) {
      double want = 0;
      for (int s = 0; s < kBatch; ++s) want += g[s * kHidden + j] * x[s * kInput + m];
      worst = std::max(worst, std::fabs(dw[static_cast<double*>(input.matrix) - grads.get() + j * kInput + m] - want));
    }
  }
  check(worst <= 1e-9, "tanh step: input weight and bias gradients");
}

void device_checks(cudaStream_t stream) {
  gpu_test::load_cudnn_engine_libraries();
  for (const RnnMode mode : {RnnMode::kRelu, RnnMode::kTanh, RnnMode::kLstm, RnnMode::kGru}) {
    const std::string name = "mode " + std::to_string(static_cast<int>(mode));
    forward_case<float>(mode, DataType::kFloat, stream, name + ", float");
    forward_case<double>(mode, DataType::kDouble, stream, name + ", double");
  }
  backward_case(stream);
}

void no_device_checks() {
  const cudnn::RnnPlan plan = cudnn::plan_rnn(call_of(RnnMode::kLstm, {1}));
  const std::string message = gpu_test::thrown<std::runtime_error>(
      [&] { cudnn::make_rnn_executable(plan, nullptr, 0); }, "an RNN made without a GPU");
  check(contains(message, "CUDA") || contains(message, "cuDNN"), "the no-device error names CUDA or cuDNN: " + message);
}

}  // namespace

int main() {
  version_checks();
  return gpu_test::run("cuDNN RNN", "cuDNN not run; RNN plans and no-device behaviour checked", plan_checks,
                       no_device_checks, device_checks);
}
