// The cuDNN convolution plans and executor (third_device/torch_cuda/torch_cuda/csrc/aten/
// cudnn), torch-free.
//
// Everywhere: plan_conv's checks and choices (cuDNN's ints, the filter's format read off its
// strides, the compute and math types of each data type and allow_tf32, what it refuses),
// and the executable cache (one per key). With a GPU: forward, backward-data and
// backward-filter plans (NCHW and NHWC, groups, stride, padding, dilation, 2-d and 3-d,
// float, double and half, heuristics and benchmark, deterministic) against a direct
// convolution on the host. Without one: says why, and checks that making an executable
// fails with a clear error.
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/gpu/cudnn_engines.h"
#include "tests/gpu/test_util.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/conv_executable.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/conv_plan.h"

namespace {

using gpu_test::check;
using gpu_test::contains;
using gpu_test::converted;
using gpu_test::worst_error;
namespace cudnn = torch_cuda::cudnn;
using cudnn::ConvDirection;
using cudnn::DataType;

// A convolution's shape: input (N, C, spatial...), filter (K, C / groups, kernel...).
struct Shape {
  std::vector<std::int64_t> input;
  std::vector<std::int64_t> filter;
  std::vector<std::int64_t> padding, stride, dilation;
  std::int64_t groups = 1;
  bool channels_last = false;

  int spatial() const { return static_cast<int>(input.size()) - 2; }
  std::vector<std::int64_t> output() const {
    std::vector<std::int64_t> sizes = {input[0], filter[0]};
    for (int i = 0; i < spatial(); ++i) {
      sizes.push_back(cudnn::conv_output_size(input[i + 2], filter[i + 2], padding[i], stride[i], dilation[i]));
    }
    return sizes;
  }
};

// A dense tensor of `sizes`, channels innermost when channels_last.
cudnn::TensorGeometry dense(const std::vector<std::int64_t>& sizes, bool channels_last) {
  cudnn::TensorGeometry g;
  std::copy(sizes.begin(), sizes.end(), g.sizes.begin());
  g.strides = cudnn::dense_strides(g.sizes, static_cast<int>(sizes.size()), channels_last);
  return g;
}

cudnn::ConvKey key_of(const Shape& shape, ConvDirection direction, DataType data_type) {
  cudnn::ConvKey key;
  key.direction = direction;
  key.data_type = data_type;
  key.spatial = shape.spatial();
  key.x = dense(shape.input, shape.channels_last);
  key.w = dense(shape.filter, shape.channels_last);
  key.y = dense(shape.output(), shape.channels_last);
  for (int i = 0; i < shape.spatial(); ++i) {
    key.padding[i] = shape.padding[i];
    key.stride[i] = shape.stride[i];
    key.dilation[i] = shape.dilation[i];
  }
  key.groups = shape.groups;
  return key;
}

Shape basic_shape() { return {{2, 4, 7, 6}, {6, 2, 3, 3}, {1, 0}, {2, 1}, {1, 2}, 2, false}; }

std::string refusal(const cudnn::ConvKey& key, const std::string& what) {
  return gpu_test::thrown<std::invalid_argument>([&] { cudnn::plan_conv(key); }, what);
}

// ---- host ---------------------------------------------------------------------------------

void plan_checks() {
  const Shape shape = basic_shape();
  cudnn::ConvKey key = key_of(shape, ConvDirection::kForward, DataType::kFloat);
  cudnn::ConvPlan plan = cudnn::plan_conv(key);
  check(plan.dims == 4 && plan.groups == 2 && !plan.w_channels_last, "NCHW forward: dims, groups, filter format");
  check(plan.y_sizes[2] == 4 && plan.y_sizes[3] == 2, "output sizes (7 + 2 - 3) / 2 + 1 = 4, (6 - 5) + 1 = 2");
  check(plan.x_strides[0] == 4 * 7 * 6 && plan.x_strides[1] == 42 && plan.x_strides[3] == 1, "input strides");
  check(plan.compute_type == DataType::kFloat && plan.math_type == cudnn::MathType::kDefault,
        "float with allow_tf32: float compute, default (TF32) math");
  key.allow_tf32 = false;
  check(cudnn::plan_conv(key).math_type == cudnn::MathType::kFma, "float without TF32: FMA math");
  key.data_type = DataType::kHalf;
  plan = cudnn::plan_conv(key);
  check(plan.compute_type == DataType::kFloat && plan.math_type == cudnn::MathType::kTensorOp,
        "half: float compute on tensor cores");
  key.data_type = DataType::kBFloat16;
  check(cudnn::plan_conv(key).math_type == cudnn::MathType::kTensorOp, "bfloat16 on tensor cores");
  key.data_type = DataType::kDouble;
  check(cudnn::plan_conv(key).compute_type == DataType::kDouble, "double computes in double");
  key.deterministic = true;
  key.benchmark = true;
  plan = cudnn::plan_conv(key);
  check(plan.deterministic_only && plan.benchmark, "deterministic and benchmark carried");
  const std::string untimed = gpu_test::thrown<std::invalid_argument>(
      [&] { cudnn::make_conv_executable(plan, {}); }, "benchmark without the call's buffers");
  check(contains(untimed, "call's buffers"), "benchmark without buffers refused before any device call");

  Shape nhwc = shape;
  nhwc.channels_last = true;
  check(cudnn::plan_conv(key_of(nhwc, ConvDirection::kForward, DataType::kFloat)).w_channels_last,
        "a channels-last filter is NHWC");

  // What it refuses, and that it says why.
  cudnn::ConvKey bad = key_of(shape, ConvDirection::kForward, DataType::kFloat);
  bad.groups = 3;
  check(contains(refusal(bad, "groups 3 of 4 channels"), "must divide"), "groups that do not divide the channels");
  bad = key_of(shape, ConvDirection::kForward, DataType::kFloat);
  bad.w.sizes[1] = 4;
  check(contains(refusal(bad, "filter channels"), "C / groups"), "a filter of the wrong input channels");
  bad = key_of(shape, ConvDirection::kForward, DataType::kFloat);
  bad.y.sizes[2] = 5;
  check(contains(refusal(bad, "output size"), "the convolution's is 4"), "an output of the wrong size");
  bad = key_of(shape, ConvDirection::kForward, DataType::kFloat);
  bad.spatial = 1;
  check(contains(refusal(bad, "1-d"), "2 or 3 spatial"), "one spatial dimension (callers view it as two)");
  bad = key_of(shape, ConvDirection::kForward, DataType::kFloat);
  bad.w.strides[3] = 2;
  check(contains(refusal(bad, "strided filter"), "NCHW or NHWC"), "a filter in neither format");
  bad = key_of(shape, ConvDirection::kForward, DataType::kFloat);
  bad.stride[0] = 0;
  check(contains(refusal(bad, "stride 0"), "positive"), "a zero stride");
  bad = key_of({{1, 1, 3, 3}, {1, 1, 1, 1}, {0, 0}, {1, 1}, {1, 1}, 1, false}, ConvDirection::kForward,
               DataType::kFloat);
  bad.x.strides[0] = std::int64_t{1} << 33;
  check(contains(refusal(bad, "huge stride"), "exceeds cuDNN's int"), "a stride beyond int");
}

// Stock's split of the batch beyond cuDNN's int.
void batch_slice_checks() {
  using Slices = std::vector<cudnn::BatchSlice>;
  const auto same = [](const Slices& got, const Slices& want) {
    if (got.size() != want.size()) return false;
    for (std::size_t i = 0; i < got.size(); ++i) {
      if (got[i].start != want[i].start || got[i].size != want[i].size) return false;
    }
    return true;
  };
  constexpr std::int64_t k26 = std::int64_t{1} << 26, k30 = std::int64_t{1} << 30;
  check(same(cudnn::conv_batch_slices(8, 800, 1600), {{0, 8}}), "within cuDNN's int: one call");
  check(same(cudnn::conv_batch_slices(41, 41 * k26, 41 * k26 / 2), {{0, 4}, {4, 4}, {8, 4}, {12, 4}, {16, 4},
                                                                     {20, 4}, {24, 4}, {28, 4}, {32, 4}, {36, 4},
                                                                     {40, 1}}),
        "2^26 elements a sample: slices of 4 samples (2^28), the rest last");
  check(same(cudnn::conv_batch_slices(3, 8, 3 * k30), {{0, 1}, {1, 1}, {2, 1}}),
        "an output of 2^30 a sample: one sample a slice");
  const std::string message = gpu_test::thrown<std::invalid_argument>(
      [] { cudnn::conv_batch_slices(2, 2 * (std::int64_t{1} << 32), 8); }, "a sample beyond int");
  check(contains(message, "one sample has"), "a sample beyond cuDNN's int refused: " + message);
  cudnn::ConvKey big = key_of(basic_shape(), ConvDirection::kForward, DataType::kFloat);
  big.x.sizes[0] = big.y.sizes[0] = std::int64_t{1} << 24;  // 168 elements a sample
  check(contains(refusal(big, "an unsplit batch beyond int"), "element count"), "the plan refuses an unsplit batch");
}

void cache_checks() {
  int made = 0;
  const auto make = [&made]() -> std::unique_ptr<cudnn::ConvExecutable> {
    ++made;
    return nullptr;
  };
  const cudnn::ConvKey key = key_of(basic_shape(), ConvDirection::kForward, DataType::kFloat);
  cudnn::ConvKey other = key, third = key;
  other.direction = ConvDirection::kBackwardFilter;
  third.direction = ConvDirection::kBackwardData;
  check(cudnn::ConvKeyHash{}(key) != cudnn::ConvKeyHash{}(other), "directions hash apart");

  cudnn::ConvCache unbounded(cudnn::ConvCache::kUnbounded);
  for (const cudnn::ConvKey& k : {key, key, other, third}) unbounded.lookup(k, make);
  check(made == 3 && unbounded.size() == 3, "one executable per key");

  made = 0;
  cudnn::ConvCache two(2);
  two.lookup(key, make);
  two.lookup(other, make);
  two.lookup(key, make);    // key is now the most recent
  two.lookup(third, make);  // evicts other
  check(made == 3 && two.size() == 2, "a capacity of 2 keeps 2");
  two.lookup(key, make);
  check(made == 3, "the most recently used survives eviction");
  two.lookup(other, make);
  check(made == 4, "the least recently used was evicted");

  check(cudnn::conv_cache_capacity(nullptr) == 10000, "10,000 by default, as stock's");
  check(cudnn::conv_cache_capacity("7") == 7, "the variable's value");
  check(cudnn::conv_cache_capacity("0") == cudnn::ConvCache::kUnbounded, "0: no bound");
  check(cudnn::conv_cache_capacity("-1") == 0, "negative: nothing kept");
  check(cudnn::conv_cache_capacity("lots") == 10000 && cudnn::conv_cache_capacity("") == 10000,
        "not an integer: 10,000");
  check(cudnn::conv_cache(0).capacity() == 10000, "a device's cache: 10,000 (the variable is unset here)");
}

// ---- device -------------------------------------------------------------------------------

// A row-major index walk over `sizes`.
bool advance(std::vector<std::int64_t>& index, const std::vector<std::int64_t>& sizes) {
  for (int d = static_cast<int>(sizes.size()) - 1; d >= 0; --d) {
    if (++index[d] < sizes[d]) return true;
    index[d] = 0;
  }
  return false;
}

std::int64_t offset(const std::vector<std::int64_t>& index, const cudnn::TensorGeometry& g) {
  std::int64_t at = 0;
  for (std::size_t d = 0; d < index.size(); ++d) at += index[d] * g.strides[d];
  return at;
}

std::int64_t numel(const std::vector<std::int64_t>& sizes) {
  std::int64_t n = 1;
  for (const std::int64_t s : sizes) n *= s;
  return n;
}

// y = conv(x, w) in double, by definition; the backward results are its adjoints,
// accumulated from the same (output, tap) pairs.
struct Reference {
  std::vector<double> y, dx, dw;
};

Reference reference(const Shape& s, const cudnn::ConvKey& key, const std::vector<double>& x,
                    const std::vector<double>& w, const std::vector<double>& dy) {
  Reference r{std::vector<double>(static_cast<std::size_t>(numel(s.output()))), std::vector<double>(x.size()),
              std::vector<double>(w.size())};
  const std::vector<std::int64_t> out = s.output();
  const std::int64_t per_group_in = s.filter[1], per_group_out = s.filter[0] / s.groups;
  std::vector<std::int64_t> o(out.size(), 0);
  do {
    std::vector<std::int64_t> tap(s.filter.size(), 0), taps = s.filter;
    taps[0] = 1;
    do {
      std::vector<std::int64_t> xi(s.input.size());
      xi[0] = o[0];
      xi[1] = (o[1] / per_group_out) * per_group_in + tap[1];
      bool inside = true;
      for (int i = 0; i < s.spatial(); ++i) {
        xi[i + 2] = o[i + 2] * s.stride[i] - s.padding[i] + tap[i + 2] * s.dilation[i];
        inside = inside && xi[i + 2] >= 0 && xi[i + 2] < s.input[i + 2];
      }
      if (!inside) continue;
      std::vector<std::int64_t> wi = tap;
      wi[0] = o[1];
      const std::int64_t xa = offset(xi, key.x), wa = offset(wi, key.w), ya = offset(o, key.y);
      r.y[ya] += x[xa] * w[wa];
      r.dx[xa] += dy[ya] * w[wa];
      r.dw[wa] += dy[ya] * x[xa];
    } while (advance(tap, taps));
  } while (advance(o, out));
  return r;
}

// Small integers times 1/8: exact in every data type, and sums of few products stay exact
// in half's 11 bits for these sizes.
std::vector<double> values(std::int64_t n, int seed) {
  std::vector<double> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) v[i] = static_cast<double>((i * 7 + seed * 3) % 9 - 4) / 8.0;
  return v;
}

template <typename T>
void run_case(const Shape& s, DataType data_type, ConvDirection direction, bool benchmark, bool deterministic,
              cudaStream_t stream, const std::string& name) {
  cudnn::ConvKey key = key_of(s, direction, data_type);
  key.benchmark = benchmark;
  key.deterministic = deterministic;
  key.allow_tf32 = false;
  const std::vector<double> x = values(numel(s.input), 1), w = values(numel(s.filter), 2),
                            dy = values(numel(s.output()), 3);
  const Reference expected = reference(s, key, x, w, dy);
  gpu_test::DeviceBuffer<T> dx(converted<T>(x)), dw(converted<T>(w)),
      dout(converted<T>(direction == ConvDirection::kForward ? std::vector<double>(dy.size(), 0.0) : dy));
  const cudnn::ConvBuffers buffers{dx.get(), dw.get(), dout.get()};
  std::vector<std::unique_ptr<gpu_test::DeviceBuffer<char>>> tuning_areas;
  const cudnn::ConvTuning tuning{buffers, stream, [&](std::int64_t bytes) {
                                   tuning_areas.push_back(std::make_unique<gpu_test::DeviceBuffer<char>>(
                                       std::vector<char>(static_cast<std::size_t>(bytes))));
                                   return static_cast<void*>(tuning_areas.back()->get());
                                 }};
  const auto executable = cudnn::make_conv_executable(cudnn::plan_conv(key), tuning);
  gpu_test::DeviceBuffer<char> workspace(std::vector<char>(static_cast<std::size_t>(executable->workspace_size())));
  executable->run(buffers, workspace.bytes_ptr(), stream);
  gpu_test::cuda_ok(cudaStreamSynchronize(stream), "sync");
  const std::vector<T> got = direction == ConvDirection::kForward        ? dout.to_host()
                             : direction == ConvDirection::kBackwardData ? dx.to_host()
                                                                         : dw.to_host();
  const std::vector<double>& want = direction == ConvDirection::kForward        ? expected.y
                                    : direction == ConvDirection::kBackwardData ? expected.dx
                                                                                : expected.dw;
  const double worst = worst_error(got, want);
  check(worst <= (data_type == DataType::kHalf ? 1e-2 : 1e-5), name + ": worst error " + std::to_string(worst));
}

void device_checks(cudaStream_t stream) {
  gpu_test::load_cudnn_engine_libraries();
  const ConvDirection directions[] = {ConvDirection::kForward, ConvDirection::kBackwardData,
                                      ConvDirection::kBackwardFilter};
  const char* names[] = {"forward", "backward-data", "backward-filter"};
  Shape nhwc = basic_shape();
  nhwc.channels_last = true;
  const Shape volume{{1, 2, 4, 5, 3}, {4, 2, 2, 3, 1}, {1, 0, 0}, {1, 2, 1}, {1, 1, 1}, 1, false};
  for (int i = 0; i < 3; ++i) {
    const std::string what = names[i];
    run_case<float>(basic_shape(), DataType::kFloat, directions[i], false, false, stream, "float NCHW " + what);
    run_case<float>(nhwc, DataType::kFloat, directions[i], false, false, stream, "float NHWC " + what);
    run_case<double>(basic_shape(), DataType::kDouble, directions[i], false, false, stream, "double " + what);
    run_case<__half>(nhwc, DataType::kHalf, directions[i], false, false, stream, "half NHWC " + what);
    run_case<float>(volume, DataType::kFloat, directions[i], false, false, stream, "float 3-d " + what);
    run_case<float>(basic_shape(), DataType::kFloat, directions[i], true, false, stream, "benchmark " + what);
    run_case<float>(basic_shape(), DataType::kFloat, directions[i], false, true, stream, "deterministic " + what);
  }
}

void no_device_checks() {
  const cudnn::ConvPlan plan = cudnn::plan_conv(key_of(basic_shape(), ConvDirection::kForward, DataType::kFloat));
  const std::string message =
      gpu_test::thrown<std::runtime_error>([&] { cudnn::make_conv_executable(plan, {}); }, "without a GPU");
  check(contains(message, "CUDA") || contains(message, "cuDNN"), "the no-device error names CUDA or cuDNN: " + message);
}

}  // namespace

int main() {
  return gpu_test::run(
      "cuDNN", "cuDNN not run; convolution plans, the executable cache and no-device behaviour checked",
      [] {
        plan_checks();
        batch_slice_checks();
        cache_checks();
      },
      no_device_checks, device_checks);
}
