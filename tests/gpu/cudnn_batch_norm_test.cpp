// The cuDNN batch-norm plans and executor (third_device/torch_cuda/torch_cuda/csrc/aten/
// cudnn), torch-free.
//
// Everywhere: plan_batch_norm's choices (stock's modes, the padding to four dimensions, the
// strides of size-1 dimensions, the parameter count) and what it refuses. With a GPU:
// training (saved and running statistics), inference and backward, NCHW and NHWC, 2-d,
// float, double and half, against batch norm computed on the host by definition. Without
// one: says why, and checks that making an executable fails with a clear error.
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tests/gpu/cudnn_engines.h"
#include "tests/gpu/test_util.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/batch_norm_executable.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/batch_norm_plan.h"

namespace {

using gpu_test::check;
using gpu_test::contains;
using gpu_test::converted;
using gpu_test::worst_error;
namespace cudnn = torch_cuda::cudnn;
using cudnn::BatchNormMode;
using cudnn::BatchNormPass;
using cudnn::DataType;

cudnn::BatchNormCall call_of(BatchNormPass pass, const std::vector<std::int64_t>& sizes, bool channels_last,
                             DataType data_type = DataType::kFloat) {
  cudnn::BatchNormCall call;
  call.pass = pass;
  call.data_type = data_type;
  call.param_type = data_type == DataType::kDouble ? DataType::kDouble : DataType::kFloat;
  call.dims = static_cast<int>(sizes.size());
  std::copy(sizes.begin(), sizes.end(), call.x.sizes.begin());
  call.x.strides = cudnn::dense_strides(call.x.sizes, call.dims, channels_last);
  call.channels_last = channels_last;
  call.running_stats = true;
  return call;
}

std::string refusal(const cudnn::BatchNormCall& call, const std::string& what) {
  return gpu_test::thrown<std::invalid_argument>([&] { cudnn::plan_batch_norm(call); }, what);
}

// ---- host ---------------------------------------------------------------------------------

void plan_checks() {
  cudnn::BatchNormPlan plan = cudnn::plan_batch_norm(call_of(BatchNormPass::kForwardTraining, {2, 3, 4, 5}, false));
  check(plan.mode == BatchNormMode::kSpatial && plan.dims == 4 && plan.update_running_stats,
        "NCHW training: spatial, four dimensions, running statistics updated");
  check(plan.x_strides[0] == 60 && plan.x_strides[1] == 20 && plan.x_strides[3] == 1, "NCHW strides");
  check(cudnn::parameter_count(plan) == 3, "one parameter per channel");
  plan = cudnn::plan_batch_norm(call_of(BatchNormPass::kForwardTraining, {2, 3, 4, 5}, true));
  check(plan.mode == BatchNormMode::kSpatialPersistent && plan.x_strides[1] == 1 && plan.x_strides[3] == 3,
        "channels-last training: cuDNN's persistent spatial mode (as stock), NHWC strides");
  check(cudnn::plan_batch_norm(call_of(BatchNormPass::kBackward, {2, 3, 4, 5}, true)).mode ==
            BatchNormMode::kSpatialPersistent,
        "channels-last backward: planned as training");
  check(cudnn::plan_batch_norm(call_of(BatchNormPass::kForwardInference, {2, 3, 4, 5}, true)).mode ==
            BatchNormMode::kSpatial,
        "channels-last inference: spatial");
  plan = cudnn::plan_batch_norm(call_of(BatchNormPass::kForwardTraining, {6, 3}, false));
  check(plan.mode == BatchNormMode::kPerActivation && plan.dims == 4 && plan.x_sizes[2] == 1 &&
            plan.x_sizes[3] == 1 && plan.x_strides[1] == 1 && cudnn::parameter_count(plan) == 3,
        "2-d: per activation, padded to (N, C, 1, 1)");
  plan = cudnn::plan_batch_norm(call_of(BatchNormPass::kForwardTraining, {2, 3, 7}, false));
  check(plan.dims == 4 && plan.x_sizes[2] == 7 && plan.x_sizes[3] == 1 && plan.x_strides[2] == 1,
        "3-d: padded to (N, C, L, 1)");
  cudnn::BatchNormCall call = call_of(BatchNormPass::kForwardTraining, {2, 1, 4, 5}, false);
  call.x.strides[1] = 12345;  // a size-1 dimension's stride is free in torch
  check(cudnn::plan_batch_norm(call).x_strides[1] == 20, "a size-1 dimension gets the dense stride cuDNN expects");
  call = call_of(BatchNormPass::kForwardTraining, {2, 3, 4, 5}, false);
  call.running_stats = false;
  check(!cudnn::plan_batch_norm(call).update_running_stats, "training without running statistics");
  plan = cudnn::plan_batch_norm(call_of(BatchNormPass::kForwardTraining, {2, 3, 2, 3, 4}, false, DataType::kHalf));
  check(plan.dims == 5 && plan.param_type == DataType::kFloat, "5-d half: float parameters");

  // What it refuses.
  check(contains(refusal(call_of(BatchNormPass::kForwardTraining, {3}, false), "1-d"), "cuDNN takes 2 to 5"),
        "a 1-d input");
  call = call_of(BatchNormPass::kForwardTraining, {2, 3, 4, 5}, false, DataType::kHalf);
  call.param_type = DataType::kHalf;
  check(contains(refusal(call, "half parameters"), "float weight"), "half data with half parameters");
  call = call_of(BatchNormPass::kForwardTraining, {2, 3, 4, 5}, false);
  call.param_type = DataType::kDouble;
  check(contains(refusal(call, "mixed float/double"), "their own type"), "float data with double parameters");
  call = call_of(BatchNormPass::kForwardTraining, {2, 3, 4, 5}, false);
  call.epsilon = -1e-3;
  check(contains(refusal(call, "negative epsilon"), "epsilon must be >= 0"), "a negative epsilon");
  call = call_of(BatchNormPass::kForwardTraining, {0, 3, 4, 5}, false);
  check(contains(refusal(call, "empty"), "size 0"), "an empty batch");
  call = call_of(BatchNormPass::kForwardTraining, {2, 3, 4, 5}, false);
  std::swap(call.x.strides[2], call.x.strides[3]);
  check(contains(refusal(call, "transposed"), "not dense in NCHW"), "a transposed input");
  call = call_of(BatchNormPass::kForwardTraining, {2, 3, 4, 5}, false);
  call.channels_last = true;
  check(contains(refusal(call, "format claim"), "not dense in NHWC"), "an NCHW input claimed channels-last");
  call = call_of(BatchNormPass::kForwardTraining, {std::int64_t{1} << 20, 3, 32, 32}, false);
  check(contains(refusal(call, "too large"), "exceed cuDNN's int"), "more elements than cuDNN's int");
}

// ---- device -------------------------------------------------------------------------------

// Batch norm by definition, per channel, over a dense tensor of `sizes` in either order.
struct Reference {
  std::vector<double> y, mean, inv_std, running_mean, running_var, y_inference, dx, dscale, dbias;
};

Reference reference(const cudnn::BatchNormPlan& plan, const std::vector<double>& x, const std::vector<double>& dy,
                    const std::vector<double>& scale, const std::vector<double>& bias,
                    const std::vector<double>& running_mean, const std::vector<double>& running_var) {
  const int channels = plan.x_sizes[1];
  const auto channel_of = [&](std::size_t at) { return static_cast<int>(at / plan.x_strides[1]) % channels; };
  const double m = static_cast<double>(x.size()) / channels, eps = plan.epsilon,
               factor = plan.exponential_average_factor;
  Reference r;
  r.mean.assign(channels, 0.0);
  std::vector<double> squares(channels, 0.0), dy_sum(channels, 0.0), dy_xhat(channels, 0.0);
  for (std::size_t i = 0; i < x.size(); ++i) r.mean[channel_of(i)] += x[i] / m;
  for (std::size_t i = 0; i < x.size(); ++i) squares[channel_of(i)] += std::pow(x[i] - r.mean[channel_of(i)], 2);
  for (int c = 0; c < channels; ++c) {
    r.inv_std.push_back(1.0 / std::sqrt(squares[c] / m + eps));
    r.running_mean.push_back((1 - factor) * running_mean[c] + factor * r.mean[c]);
    r.running_var.push_back((1 - factor) * running_var[c] + factor * squares[c] / (m - 1));
  }
  for (std::size_t i = 0; i < x.size(); ++i) {
    const int c = channel_of(i);
    const double xhat = (x[i] - r.mean[c]) * r.inv_std[c];
    r.y.push_back(scale[c] * xhat + bias[c]);
    r.y_inference.push_back(scale[c] * (x[i] - running_mean[c]) / std::sqrt(running_var[c] + eps) + bias[c]);
    dy_sum[c] += dy[i];
    dy_xhat[c] += dy[i] * xhat;
  }
  for (std::size_t i = 0; i < x.size(); ++i) {
    const int c = channel_of(i);
    const double xhat = (x[i] - r.mean[c]) * r.inv_std[c];
    r.dx.push_back(scale[c] * r.inv_std[c] * (dy[i] - dy_sum[c] / m - xhat * dy_xhat[c] / m));
  }
  r.dscale = dy_xhat;
  r.dbias = dy_sum;
  return r;
}

std::vector<double> values(std::size_t n, int seed) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<double>((i * 7 + seed * 3) % 11) / 4.0 - 1.0;
  return v;
}

// Runs `plan` through a fresh executable with its own work area and the given reserve.
void run(const cudnn::BatchNormPlan& plan, cudnn::BatchNormBuffers buffers, cudaStream_t stream,
         gpu_test::DeviceBuffer<char>* reserve) {
  const auto executable = cudnn::make_batch_norm_executable(plan);
  gpu_test::DeviceBuffer<char> workspace(std::vector<char>(static_cast<std::size_t>(executable->workspace_size())));
  buffers.workspace = workspace.bytes_ptr();
  buffers.reserve = reserve->bytes_ptr();
  buffers.reserve_bytes = executable->reserve_size();
  executable->run(buffers, stream);
  gpu_test::cuda_ok(cudaStreamSynchronize(stream), "sync");
}

// T is the data's type, P the parameters'.
template <typename T, typename P>
void run_case(const std::vector<std::int64_t>& sizes, bool channels_last, DataType data_type, cudaStream_t stream,
              const std::string& name) {
  cudnn::BatchNormCall call = call_of(BatchNormPass::kForwardTraining, sizes, channels_last, data_type);
  const cudnn::BatchNormPlan training = cudnn::plan_batch_norm(call);
  std::size_t n = 1;
  for (const std::int64_t s : sizes) n *= static_cast<std::size_t>(s);
  const std::size_t channels = static_cast<std::size_t>(sizes[1]);
  const std::vector<double> x = values(n, 1), dy = values(n, 2), scale = values(channels, 3),
                            bias = values(channels, 4), running_mean = values(channels, 5);
  std::vector<double> running_var = values(channels, 6);
  for (double& v : running_var) v = std::fabs(v) + 0.5;
  const Reference want = reference(training, x, dy, scale, bias, running_mean, running_var);
  const double tolerance = data_type == DataType::kHalf ? 2e-2 : data_type == DataType::kFloat ? 1e-4 : 1e-9;

  gpu_test::DeviceBuffer<T> dx_in(converted<T>(x)), d_dy(converted<T>(dy)), d_y{std::vector<T>(n)},
      d_dx{std::vector<T>(n)};
  gpu_test::DeviceBuffer<P> d_scale(converted<P>(scale)), d_bias(converted<P>(bias)),
      d_rm(converted<P>(running_mean)), d_rv(converted<P>(running_var)), d_mean{std::vector<P>(channels)},
      d_inv{std::vector<P>(channels)}, d_dscale{std::vector<P>(channels)}, d_dbias{std::vector<P>(channels)};
  cudnn::BatchNormBuffers b;
  b.x = dx_in.get();
  b.y = d_y.get();
  b.scale = d_scale.get();
  b.bias = d_bias.get();
  b.running_mean = d_rm.get();
  b.running_var = d_rv.get();
  b.saved_mean = d_mean.get();
  b.saved_inv_std = d_inv.get();
  const auto sizing = cudnn::make_batch_norm_executable(training);
  gpu_test::DeviceBuffer<char> reserve(std::vector<char>(static_cast<std::size_t>(sizing->reserve_size()) + 1));
  run(training, b, stream, &reserve);
  check(worst_error(d_y.to_host(), want.y) <= tolerance, name + ": training output");
  check(worst_error(d_mean.to_host(), want.mean) <= tolerance, name + ": saved mean");
  check(worst_error(d_inv.to_host(), want.inv_std) <= tolerance * 10, name + ": saved inverse std");
  check(worst_error(d_rm.to_host(), want.running_mean) <= tolerance, name + ": running mean");
  check(worst_error(d_rv.to_host(), want.running_var) <= tolerance, name + ": running variance (unbiased)");

  call.pass = BatchNormPass::kBackward;
  b.dy = d_dy.get();
  b.dx = d_dx.get();
  b.scale_grad = d_dscale.get();
  b.bias_grad = d_dbias.get();
  run(cudnn::plan_batch_norm(call), b, stream, &reserve);
  check(worst_error(d_dx.to_host(), want.dx) <= tolerance * 10, name + ": backward dx");
  check(worst_error(d_dscale.to_host(), want.dscale) <= tolerance * 10, name + ": backward dscale");
  check(worst_error(d_dbias.to_host(), want.dbias) <= tolerance * 10, name + ": backward dbias");

  call.pass = BatchNormPass::kForwardInference;
  gpu_test::DeviceBuffer<P> rm_again(converted<P>(running_mean)), rv_again(converted<P>(running_var));
  b.running_mean = rm_again.get();
  b.running_var = rv_again.get();
  run(cudnn::plan_batch_norm(call), b, stream, &reserve);
  check(worst_error(d_y.to_host(), want.y_inference) <= tolerance, name + ": inference output");
}

void device_checks(cudaStream_t stream) {
  gpu_test::load_cudnn_engine_libraries();
  run_case<float, float>({2, 3, 4, 5}, false, DataType::kFloat, stream, "float NCHW");
  run_case<float, float>({2, 3, 4, 5}, true, DataType::kFloat, stream, "float NHWC");
  run_case<float, float>({6, 3}, false, DataType::kFloat, stream, "float 2-d");
  run_case<float, float>({2, 3, 2, 3, 4}, false, DataType::kFloat, stream, "float 3-d");
  run_case<double, double>({2, 3, 4, 5}, false, DataType::kDouble, stream, "double NCHW");
  run_case<__half, float>({2, 3, 4, 5}, true, DataType::kHalf, stream, "half NHWC");
}

void no_device_checks() {
  const cudnn::BatchNormPlan plan =
      cudnn::plan_batch_norm(call_of(BatchNormPass::kForwardTraining, {2, 3, 4, 5}, false));
  const std::string message = gpu_test::thrown<std::runtime_error>([&] { cudnn::make_batch_norm_executable(plan); },
                                                                   "an executable without a GPU");
  check(contains(message, "CUDA") || contains(message, "cuDNN"), "the no-device error names CUDA or cuDNN: " + message);
}

}  // namespace

int main() {
  return gpu_test::run("cuDNN batch norm", "cuDNN not run; batch-norm plans and no-device behaviour checked",
                       plan_checks, no_device_checks, device_checks);
}
