#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/conv_plan.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "third_device/torch_cuda/torch_cuda/csrc/aten/lru_cache.h"

namespace torch_cuda::cudnn {
namespace {

constexpr const char* kPlan = "cuDNN convolution plan";

[[noreturn]] void refuse(const std::string& what) { cudnn::refuse(kPlan, what); }

int as_int(std::int64_t value, const char* what) { return as_cudnn_int(kPlan, value, what); }

bool same_geometry(const TensorGeometry& a, const TensorGeometry& b) {
  return a.sizes == b.sizes && a.strides == b.strides;
}

DataType compute_type_of(DataType data_type) {
  return data_type == DataType::kDouble ? DataType::kDouble : DataType::kFloat;
}

// As stock's ConvolutionDescriptor: half and bfloat16 on tensor cores, float on TF32 ones
// unless allow_tf32 is off.
MathType math_type_of(DataType data_type, bool allow_tf32) {
  switch (data_type) {
    case DataType::kHalf:
    case DataType::kBFloat16:
      return MathType::kTensorOp;
    case DataType::kFloat:
      return allow_tf32 ? MathType::kDefault : MathType::kFma;
    case DataType::kDouble:
      break;
  }
  return MathType::kDefault;
}

void check_sizes(const TensorGeometry& t, int dims, const char* name) {
  for (int d = 0; d < dims; ++d) {
    if (t.sizes[d] <= 0) refuse(std::string(name) + " has a dimension of size " + std::to_string(t.sizes[d]));
    if (t.strides[d] < 0) refuse(std::string(name) + " has a negative stride");
  }
}

}  // namespace

bool ConvKey::operator==(const ConvKey& other) const {
  return direction == other.direction && data_type == other.data_type && spatial == other.spatial &&
         same_geometry(x, other.x) && same_geometry(w, other.w) && same_geometry(y, other.y) &&
         padding == other.padding && stride == other.stride && dilation == other.dilation && groups == other.groups &&
         deterministic == other.deterministic && benchmark == other.benchmark && allow_tf32 == other.allow_tf32;
}

std::size_t ConvKeyHash::operator()(const ConvKey& key) const {
  std::size_t seed = 0;
  const auto mix = [&seed](std::int64_t value) { hash_combine(seed, value); };
  mix(static_cast<std::int64_t>(key.direction));
  mix(static_cast<std::int64_t>(key.data_type));
  mix(key.spatial);
  for (const TensorGeometry* t : {&key.x, &key.w, &key.y}) {
    for (const std::int64_t v : t->sizes) mix(v);
    for (const std::int64_t v : t->strides) mix(v);
  }
  for (int i = 0; i < kMaxSpatial; ++i) {
    mix(key.padding[i]);
    mix(key.stride[i]);
    mix(key.dilation[i]);
  }
  mix(key.groups);
  mix(key.deterministic);
  mix(key.benchmark);
  mix(key.allow_tf32);
  return seed;
}

std::int64_t conv_output_size(std::int64_t input, std::int64_t kernel, std::int64_t padding, std::int64_t stride,
                              std::int64_t dilation) {
  return (input + 2 * padding - dilation * (kernel - 1) - 1) / stride + 1;
}

ConvPlan plan_conv(const ConvKey& key) {
  if (key.spatial != 2 && key.spatial != 3) {
    refuse("cuDNN convolves 2 or 3 spatial dimensions, not " + std::to_string(key.spatial));
  }
  const int dims = key.spatial + 2;
  check_sizes(key.x, dims, "the input");
  check_sizes(key.w, dims, "the filter");
  check_sizes(key.y, dims, "the output");
  if (key.groups <= 0) refuse("groups must be positive, not " + std::to_string(key.groups));
  const std::int64_t channels = key.x.sizes[1], out_channels = key.w.sizes[0];
  if (channels % key.groups != 0 || out_channels % key.groups != 0) {
    refuse("groups (" + std::to_string(key.groups) + ") must divide the input's " + std::to_string(channels) +
           " and the output's " + std::to_string(out_channels) + " channels");
  }
  if (key.w.sizes[1] != channels / key.groups) {
    refuse("the filter has " + std::to_string(key.w.sizes[1]) + " input channels, not C / groups = " +
           std::to_string(channels / key.groups));
  }
  if (key.y.sizes[0] != key.x.sizes[0] || key.y.sizes[1] != out_channels) {
    refuse("the output's batch and channels must be the input's batch and the filter's count");
  }
  for (int i = 0; i < key.spatial; ++i) {
    if (key.stride[i] <= 0 || key.dilation[i] <= 0) refuse("stride and dilation must be positive");
    if (key.padding[i] < 0) refuse("padding must not be negative");
    const std::int64_t expected =
        conv_output_size(key.x.sizes[i + 2], key.w.sizes[i + 2], key.padding[i], key.stride[i], key.dilation[i]);
    if (key.y.sizes[i + 2] != expected) {
      refuse("spatial dimension " + std::to_string(i) + " of the output is " + std::to_string(key.y.sizes[i + 2]) +
             ", the convolution's is " + std::to_string(expected));
    }
  }
  const bool nchw_filter = dense_in_order(key.w, dims, false);
  if (!nchw_filter && !dense_in_order(key.w, dims, true)) {
    refuse("the filter must be dense in NCHW or NHWC order (make it contiguous in one of them)");
  }

  ConvPlan plan;
  plan.direction = key.direction;
  plan.data_type = key.data_type;
  plan.compute_type = compute_type_of(key.data_type);
  plan.math_type = math_type_of(key.data_type, key.allow_tf32);
  plan.dims = dims;
  plan.w_channels_last = !nchw_filter;
  for (int d = 0; d < dims; ++d) {
    plan.x_sizes[d] = as_int(key.x.sizes[d], "an input size");
    plan.x_strides[d] = as_int(key.x.strides[d], "an input stride");
    plan.w_sizes[d] = as_int(key.w.sizes[d], "a filter size");
    plan.y_sizes[d] = as_int(key.y.sizes[d], "an output size");
    plan.y_strides[d] = as_int(key.y.strides[d], "an output stride");
  }
  for (int i = 0; i < key.spatial; ++i) {
    plan.padding[i] = as_int(key.padding[i], "a padding");
    plan.stride[i] = as_int(key.stride[i], "a stride");
    plan.dilation[i] = as_int(key.dilation[i], "a dilation");
  }
  plan.groups = as_int(key.groups, "groups");
  // The operator splits larger batches (conv_batch_slices).
  std::int64_t x_elements = 1, y_elements = 1;
  for (int d = 0; d < dims; ++d) {
    x_elements *= key.x.sizes[d];
    y_elements *= key.y.sizes[d];
  }
  as_int(x_elements, "the input's element count");
  as_int(y_elements, "the output's element count");
  plan.deterministic_only = key.deterministic;
  plan.benchmark = key.benchmark;
  return plan;
}

std::vector<BatchSlice> conv_batch_slices(std::int64_t batch, std::int64_t x_elements, std::int64_t y_elements) {
  constexpr std::int64_t kIntMax = std::numeric_limits<int>::max();
  if (x_elements <= kIntMax && y_elements <= kIntMax) return {{0, batch}};
  constexpr std::int64_t kSliceElements = std::int64_t{1} << 28;  // stock's max_worksize
  const std::int64_t per_sample = std::max(x_elements, y_elements) / batch;
  if (per_sample > kIntMax) {
    refuse("one sample has " + std::to_string(per_sample) + " elements, beyond cuDNN's int even without the batch");
  }
  const std::int64_t samples = std::max<std::int64_t>(kSliceElements / per_sample, 1);
  std::vector<BatchSlice> slices;
  for (std::int64_t start = 0; start < batch; start += samples) {
    slices.push_back({start, std::min(samples, batch - start)});
  }
  return slices;
}

}  // namespace torch_cuda::cudnn
