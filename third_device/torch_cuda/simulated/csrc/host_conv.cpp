// The simulated variant's executor of conv_plan.h's plans: the call cuDNN would make, run
// on the host on the stream's worker with cuDNN's documented semantics: cross-correlation
// (the filter is not flipped), every tensor read and written through its descriptor (x and
// y through their strides, the filter through its NCHW or NHWC format), groups splitting
// the input and output channels into independent convolutions, positions outside the
// padded input reading zero, alpha 1 and beta 0 (the output overwritten, never read).
// Products are summed in double and rounded once to the data type; float inputs are first
// rounded to TF32 when the plan's math type allows tensor cores for float (allow_tf32), as
// on a GPU that has them. Plans and runs are recorded under the cuDNN calls they stand in
// for (library_calls.h).
#include <array>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include "third_device/torch_cuda/simulated/csrc/library_calls.h"
#include "third_device/torch_cuda/simulated/csrc/tf32.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/conv_executable.h"
#include "torch_core/csrc/simulated/simulated_device.h"

namespace torch_cuda::cudnn {
namespace {

using Index = std::array<std::int64_t, kMaxDims>;

// The cuDNN calls each direction stands in for: choosing an algorithm by heuristics or by
// timing (benchmark), and running it.
constexpr const char* kChooseCalls[3][2] = {
    {"cudnnGetConvolutionForwardAlgorithm_v7", "cudnnFindConvolutionForwardAlgorithm"},
    {"cudnnGetConvolutionBackwardDataAlgorithm_v7", "cudnnFindConvolutionBackwardDataAlgorithm"},
    {"cudnnGetConvolutionBackwardFilterAlgorithm_v7", "cudnnFindConvolutionBackwardFilterAlgorithm"},
};
constexpr const char* kRunCalls[3] = {"cudnnConvolutionForward", "cudnnConvolutionBackwardData",
                                      "cudnnConvolutionBackwardFilter"};

// The filter's strides, which cuDNN derives from its format.
std::array<std::int64_t, kMaxDims> filter_strides(const ConvPlan& plan) {
  std::array<std::int64_t, kMaxDims> strides{};
  std::int64_t stride = 1;
  if (plan.w_channels_last) {
    strides[1] = stride;
    stride *= plan.w_sizes[1];
  }
  for (int d = plan.dims - 1; d >= 2; --d) {
    strides[d] = stride;
    stride *= plan.w_sizes[d];
  }
  if (!plan.w_channels_last) {
    strides[1] = stride;
    stride *= plan.w_sizes[1];
  }
  strides[0] = stride;
  return strides;
}

std::int64_t element_count(const std::array<int, kMaxDims>& sizes, int dims) {
  std::int64_t count = 1;
  for (int d = 0; d < dims; ++d) count *= sizes[d];
  return count;
}

// The element offset of `index` in a tensor of `strides`.
template <typename Strides>
std::int64_t offset_of(const Index& index, const Strides& strides, int dims) {
  std::int64_t offset = 0;
  for (int d = 0; d < dims; ++d) offset += index[d] * static_cast<std::int64_t>(strides[d]);
  return offset;
}

// The next row-major position over `sizes`; false after the last.
bool advance(Index& index, const std::array<int, kMaxDims>& sizes, int dims) {
  for (int d = dims - 1; d >= 0; --d) {
    if (++index[d] < sizes[d]) return true;
    index[d] = 0;
  }
  return false;
}

template <typename T>
class HostConvolution final : public ConvExecutable {
 public:
  explicit HostConvolution(const ConvPlan& plan) : plan_(plan) {}

  std::int64_t workspace_size() const override { return 0; }

  void run(const ConvBuffers& buffers, void*, torch_core::StreamHandle stream) const override {
    simulated::record_library_call(kRunCalls[static_cast<int>(plan_.direction)]);
    const ConvPlan plan = plan_;
    torch_core::simulated_device::enqueue(c10::DeviceType::CUDA, stream, [plan, buffers] { convolve(plan, buffers); });
  }

 private:
  static double load(const void* base, std::int64_t offset, bool tf32) {
    const T value = static_cast<const T*>(base)[offset];
    if constexpr (std::is_same_v<T, float>) {
      return tf32 ? simulated::round_to_tf32(value) : value;
    } else {
      return static_cast<double>(value);
    }
  }

  static T rounded(double value) {
    if constexpr (std::is_same_v<T, double>) {
      return value;
    } else {
      return static_cast<T>(static_cast<float>(value));
    }
  }

  // Every (output position, filter tap) pair whose input position lies inside the input:
  // the one loop of the three directions, which differ only in which operand they sum into.
  static void convolve(const ConvPlan& plan, const ConvBuffers& buffers) {
    const int dims = plan.dims, spatial = plan.dims - 2;
    const bool tf32 = plan.data_type == DataType::kFloat && plan.math_type == MathType::kDefault;
    const auto w_strides = filter_strides(plan);
    const int channels_per_group = plan.w_sizes[1];
    const int outputs_per_group = plan.w_sizes[0] / plan.groups;
    const std::array<int, kMaxDims>& accumulated_sizes = plan.direction == ConvDirection::kForward ? plan.y_sizes
                                                         : plan.direction == ConvDirection::kBackwardData
                                                             ? plan.x_sizes
                                                             : plan.w_sizes;
    std::vector<double> sums(static_cast<std::size_t>(element_count(accumulated_sizes, dims)), 0.0);
    // Row-major position of an index in the accumulated operand.
    std::array<std::int64_t, kMaxDims> row_major{};
    for (std::int64_t d = dims - 1, stride = 1; d >= 0; --d) {
      row_major[d] = stride;
      stride *= accumulated_sizes[d];
    }

    Index y_index{};
    do {
      const int k = static_cast<int>(y_index[1]);
      const int group = k / outputs_per_group;
      const double dy = plan.direction == ConvDirection::kForward
                            ? 0.0
                            : load(buffers.y, offset_of(y_index, plan.y_strides, dims), tf32);
      Index w_index{};
      w_index[0] = k;
      std::array<int, kMaxDims> tap_sizes = plan.w_sizes;
      tap_sizes[0] = 1;
      do {
        Index x_index{};
        x_index[0] = y_index[0];
        x_index[1] = group * channels_per_group + w_index[1];
        bool inside = true;
        for (int i = 0; i < spatial && inside; ++i) {
          const std::int64_t at = y_index[i + 2] * plan.stride[i] - plan.padding[i] + w_index[i + 2] * plan.dilation[i];
          inside = at >= 0 && at < plan.x_sizes[i + 2];
          x_index[i + 2] = at;
        }
        if (!inside) continue;
        const std::int64_t w_at = offset_of(w_index, w_strides, dims);
        switch (plan.direction) {
          case ConvDirection::kForward:
            sums[offset_of(y_index, row_major, dims)] +=
                load(buffers.x, offset_of(x_index, plan.x_strides, dims), tf32) * load(buffers.w, w_at, tf32);
            break;
          case ConvDirection::kBackwardData:
            sums[offset_of(x_index, row_major, dims)] += dy * load(buffers.w, w_at, tf32);
            break;
          case ConvDirection::kBackwardFilter:
            sums[offset_of(w_index, row_major, dims)] +=
                dy * load(buffers.x, offset_of(x_index, plan.x_strides, dims), tf32);
            break;
        }
      } while (advance(w_index, tap_sizes, dims));
    } while (advance(y_index, plan.y_sizes, dims));

    // Written once each, through the operand's own layout.
    void* const out = plan.direction == ConvDirection::kForward        ? buffers.y
                      : plan.direction == ConvDirection::kBackwardData ? buffers.x
                                                                       : buffers.w;
    Index index{};
    do {
      std::int64_t at = 0;
      switch (plan.direction) {
        case ConvDirection::kForward:
          at = offset_of(index, plan.y_strides, dims);
          break;
        case ConvDirection::kBackwardData:
          at = offset_of(index, plan.x_strides, dims);
          break;
        case ConvDirection::kBackwardFilter:
          at = offset_of(index, w_strides, dims);
          break;
      }
      static_cast<T*>(out)[at] = rounded(sums[offset_of(index, row_major, dims)]);
    } while (advance(index, accumulated_sizes, dims));
  }

  ConvPlan plan_;
};

}  // namespace

std::unique_ptr<ConvExecutable> make_conv_executable(const ConvPlan& plan) {
  simulated::record_library_call(kChooseCalls[static_cast<int>(plan.direction)][plan.benchmark ? 1 : 0]);
  switch (plan.data_type) {
    case DataType::kHalf:
      return std::make_unique<HostConvolution<c10::Half>>(plan);
    case DataType::kBFloat16:
      return std::make_unique<HostConvolution<c10::BFloat16>>(plan);
    case DataType::kFloat:
      return std::make_unique<HostConvolution<float>>(plan);
    case DataType::kDouble:
      return std::make_unique<HostConvolution<double>>(plan);
  }
  return nullptr;
}

}  // namespace torch_cuda::cudnn
