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

#include "third_device/torch_cuda/simulated/csrc/host_index.h"
#include "third_device/torch_cuda/simulated/csrc/library_calls.h"
#include "third_device/torch_cuda/simulated/csrc/tf32.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/conv_executable.h"
#include "torch_core/csrc/simulated/simulated_device.h"

namespace torch_cuda::cudnn {
namespace {

using simulated::advance;
using simulated::element_count;
using simulated::Index;
using simulated::offset_of;

// The frontend's calls this stands in for, per direction: choosing by heuristics or, with
// benchmark, by timing the candidates; running the graph.
constexpr const char* kChooseCalls[3][2] = {
    {"cudnn_frontend::conv_fprop::heuristics", "cudnn_frontend::conv_fprop::autotune"},
    {"cudnn_frontend::conv_dgrad::heuristics", "cudnn_frontend::conv_dgrad::autotune"},
    {"cudnn_frontend::conv_wgrad::heuristics", "cudnn_frontend::conv_wgrad::autotune"},
};
constexpr const char* kRunCalls[3] = {"cudnn_frontend::conv_fprop", "cudnn_frontend::conv_dgrad",
                                      "cudnn_frontend::conv_wgrad"};

std::array<std::int64_t, kMaxDims> widened(const std::array<int, kMaxDims>& strides) {
  std::array<std::int64_t, kMaxDims> result{};
  for (int d = 0; d < kMaxDims; ++d) result[d] = strides[d];
  return result;
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

  // Every (output position, filter tap) pair whose input position lies inside the input:
  // the one loop of the three directions, which differ only in which operand they sum into.
  static void convolve(const ConvPlan& plan, const ConvBuffers& buffers) {
    const int dims = plan.dims, spatial = plan.dims - 2;
    const bool tf32 = plan.data_type == DataType::kFloat && plan.math_type == MathType::kDefault;
    // cuDNN derives the filter's strides from its format.
    const auto w_strides = dense_strides(plan.w_sizes, dims, plan.w_channels_last);
    const int channels_per_group = plan.w_sizes[1];
    const int outputs_per_group = plan.w_sizes[0] / plan.groups;
    // The operand the direction writes: its sizes, its strides and its buffer.
    const std::array<int, kMaxDims>& out_sizes = plan.direction == ConvDirection::kForward ? plan.y_sizes
                                                 : plan.direction == ConvDirection::kBackwardData
                                                     ? plan.x_sizes
                                                     : plan.w_sizes;
    const std::array<std::int64_t, kMaxDims> out_strides =
        plan.direction == ConvDirection::kForward        ? widened(plan.y_strides)
        : plan.direction == ConvDirection::kBackwardData ? widened(plan.x_strides)
                                                         : w_strides;
    void* const out = plan.direction == ConvDirection::kForward        ? buffers.y
                      : plan.direction == ConvDirection::kBackwardData ? buffers.x
                                                                       : buffers.w;
    // Sums in double, at the row-major position of the written operand's index.
    std::vector<double> sums(static_cast<std::size_t>(element_count(out_sizes, dims)), 0.0);
    const auto row_major = dense_strides(out_sizes, dims, false);
    // The taps of one output channel: its filter's (C / groups, kernel...).
    std::array<int, kMaxDims> tap_sizes = plan.w_sizes;
    tap_sizes[0] = 1;

    Index y_index{};
    do {
      const int k = static_cast<int>(y_index[1]);
      const int group = k / outputs_per_group;
      const std::int64_t y_at = offset_of(y_index, plan.y_strides, dims);
      const double dy = plan.direction == ConvDirection::kForward ? 0.0 : load(buffers.y, y_at, tf32);
      const std::int64_t y_sum = offset_of(y_index, row_major, dims);
      Index w_index{};
      w_index[0] = k;
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
            sums[y_sum] +=
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
    Index index{};
    do {
      simulated::store_element<T>(out, offset_of(index, out_strides, dims), sums[offset_of(index, row_major, dims)]);
    } while (advance(index, out_sizes, dims));
  }

  ConvPlan plan_;
};

}  // namespace

// One engine: with benchmark there is nothing to time, so the tuning buffers go unread.
std::unique_ptr<ConvExecutable> make_conv_executable(const ConvPlan& plan, const ConvTuning& /*tuning*/) {
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
