// The simulated variant's executor of grid_sampler_plan.h's plans: the call cuDNN's spatial
// transformer sampler would make, run on the host on the stream's worker with its
// documented semantics: bilinear interpolation at grid point (x, y) in [-1, 1], where -1
// and 1 are the centres of the first and last pixels (x * (W - 1) + W - 1) / 2; corners
// outside the input read zero and receive no gradient. Backward writes both gradients
// (cuDNN has no output mask): the input's, summed over the grid points that read each
// pixel, and the grid's, the interpolation's slope times (size - 1) / 2. The input and the
// output's gradient are read through their strides, the rest is dense; sums in double.
// Runs are recorded under the cuDNN calls they stand in for (library_calls.h).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

#include <c10/util/Half.h>

#include "third_device/torch_cuda/simulated/csrc/host_index.h"
#include "third_device/torch_cuda/simulated/csrc/library_calls.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/grid_sampler_executable.h"
#include "torch_core/csrc/simulated/simulated_device.h"

namespace torch_cuda::cudnn {
namespace {

// One output position's four neighbours: their pixel coordinates and bilinear weights.
struct Corners {
  std::int64_t x0, y0;
  double wx1, wy1;  // the weights of x0 + 1 and y0 + 1; x0 and y0 take 1 minus them
};

template <typename T>
class HostGridSampler final : public GridSamplerExecutable {
 public:
  explicit HostGridSampler(const GridSamplerPlan& plan) : plan_(plan) {}

  void run(const GridSamplerBuffers& buffers, torch_core::StreamHandle stream) const override {
    const bool forward = plan_.pass == SamplerPass::kForward;
    simulated::record_library_call(forward ? "cudnnSpatialTfSamplerForward" : "cudnnSpatialTfSamplerBackward");
    const GridSamplerPlan plan = plan_;
    torch_core::simulated_device::enqueue(c10::DeviceType::CUDA, stream, [plan, buffers, forward] {
      forward ? sample(plan, buffers) : backward(plan, buffers);
    });
  }

 private:
  static double load(const void* base, std::int64_t offset) { return simulated::load_element<T>(base, offset); }
  static void store(void* base, std::int64_t offset, double value) {
    simulated::store_element<T>(base, offset, value);
  }

  // A pixel coordinate more than a pixel outside the input (or not a number) reads nothing
  // and gets no gradient: held just outside, so the corner arithmetic stays in range.
  static double held(double coordinate, int size) {
    return std::isnan(coordinate) ? -2.0 : std::clamp(coordinate, -2.0, size + 1.0);
  }

  // The grid point of output position (n, h, w) in pixel coordinates.
  static Corners corners(const GridSamplerPlan& p, const void* grid, std::int64_t n, std::int64_t h, std::int64_t w) {
    const std::int64_t point = ((n * p.y_sizes[2] + h) * p.y_sizes[3] + w) * 2;
    const double x = held((load(grid, point) + 1.0) / 2.0 * (p.x_sizes[3] - 1), p.x_sizes[3]);
    const double y = held((load(grid, point + 1) + 1.0) / 2.0 * (p.x_sizes[2] - 1), p.x_sizes[2]);
    const double x0 = std::floor(x), y0 = std::floor(y);
    return {static_cast<std::int64_t>(x0), static_cast<std::int64_t>(y0), x - x0, y - y0};
  }

  // Calls visit(y, x, wx, wy, right, below) for each corner inside the input: its pixel,
  // its weights along x and y, and whether it is the right or lower neighbour.
  template <typename Visit>
  static void for_corners(const GridSamplerPlan& p, const Corners& c, Visit&& visit) {
    for (int below = 0; below < 2; ++below) {
      for (int right = 0; right < 2; ++right) {
        const std::int64_t x = c.x0 + right, y = c.y0 + below;
        if (x < 0 || x >= p.x_sizes[3] || y < 0 || y >= p.x_sizes[2]) continue;
        visit(y, x, right ? c.wx1 : 1.0 - c.wx1, below ? c.wy1 : 1.0 - c.wy1, right, below);
      }
    }
  }

  // The offset of (n, channel, y, x) through `strides`.
  template <typename Strides>
  static std::int64_t at(const Strides& strides, std::int64_t n, std::int64_t channel, std::int64_t y,
                         std::int64_t x) {
    return n * strides[0] + channel * strides[1] + y * strides[2] + x * strides[3];
  }

  static void sample(const GridSamplerPlan& p, const GridSamplerBuffers& b) {
    const std::int64_t channels = p.x_sizes[1], height = p.y_sizes[2], width = p.y_sizes[3];
    for (std::int64_t n = 0; n < p.x_sizes[0]; ++n) {
      for (std::int64_t h = 0; h < height; ++h) {
        for (std::int64_t w = 0; w < width; ++w) {
          const Corners c = corners(p, b.grid, n, h, w);
          for (std::int64_t channel = 0; channel < channels; ++channel) {
            double sum = 0.0;
            for_corners(p, c, [&](std::int64_t y, std::int64_t x, double wx, double wy, int, int) {
              sum += wx * wy * load(b.x, at(p.x_strides, n, channel, y, x));
            });
            store(b.y, ((n * channels + channel) * height + h) * width + w, sum);
          }
        }
      }
    }
  }

  static void backward(const GridSamplerPlan& p, const GridSamplerBuffers& b) {
    const std::int64_t channels = p.x_sizes[1], height = p.y_sizes[2], width = p.y_sizes[3];
    const std::array<std::int64_t, 4> dense = {channels * p.x_sizes[2] * p.x_sizes[3], p.x_sizes[2] * p.x_sizes[3],
                                               p.x_sizes[3], 1};
    std::vector<double> dx(static_cast<std::size_t>(p.x_sizes[0] * dense[0]));
    for (std::int64_t n = 0; n < p.x_sizes[0]; ++n) {
      for (std::int64_t h = 0; h < height; ++h) {
        for (std::int64_t w = 0; w < width; ++w) {
          const Corners c = corners(p, b.grid, n, h, w);
          double grad_x = 0.0, grad_y = 0.0;
          for (std::int64_t channel = 0; channel < channels; ++channel) {
            const double dy = load(b.dy, at(p.dy_strides, n, channel, h, w));
            for_corners(p, c, [&](std::int64_t y, std::int64_t x, double wx, double wy, int right, int below) {
              const double value = load(b.x, at(p.x_strides, n, channel, y, x));
              dx[at(dense, n, channel, y, x)] += wx * wy * dy;
              grad_x += (right ? wy : -wy) * value * dy;
              grad_y += (below ? wx : -wx) * value * dy;
            });
          }
          const std::int64_t grid_at = ((n * height + h) * width + w) * 2;
          store(b.dgrid, grid_at, grad_x * (p.x_sizes[3] - 1) / 2.0);
          store(b.dgrid, grid_at + 1, grad_y * (p.x_sizes[2] - 1) / 2.0);
        }
      }
    }
    for (std::size_t i = 0; i < dx.size(); ++i) store(b.dx, static_cast<std::int64_t>(i), dx[i]);
  }

  GridSamplerPlan plan_;
};

}  // namespace

std::unique_ptr<GridSamplerExecutable> make_grid_sampler_executable(const GridSamplerPlan& plan) {
  switch (plan.data_type) {
    case DataType::kHalf:
      return std::make_unique<HostGridSampler<c10::Half>>(plan);
    case DataType::kFloat:
      return std::make_unique<HostGridSampler<float>>(plan);
    case DataType::kDouble:
      return std::make_unique<HostGridSampler<double>>(plan);
    case DataType::kBFloat16:
      break;
  }
  throw std::invalid_argument("cuDNN's grid sampler takes float, double and half");
}

}  // namespace torch_cuda::cudnn
