// The cuDNN grid-sampler plans and executor (third_device/torch_cuda/torch_cuda/csrc/aten/
// cudnn), torch-free.
//
// Everywhere: plan_grid_sampler's checks. With a GPU: forward and backward (both
// gradients), float and double, an input through transposed strides, against bilinear
// sampling computed on the host by definition (align_corners: -1 and 1 the centres of the
// edge pixels; zero outside). Without one: says why, and checks that making an executable
// fails with a clear error.
#include <array>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/gpu/cudnn_engines.h"
#include "tests/gpu/test_util.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/grid_sampler_executable.h"
#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/grid_sampler_plan.h"

namespace {

using gpu_test::check;
using gpu_test::contains;
using gpu_test::converted;
using gpu_test::worst_error;
namespace cudnn = torch_cuda::cudnn;
using cudnn::DataType;
using cudnn::SamplerPass;

// Input (N, C, H, W), NCHW-dense or with H and W's strides swapped; output (Ho, Wo).
cudnn::GridSamplerCall call_of(SamplerPass pass, std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w,
                               std::int64_t ho, std::int64_t wo, bool transposed, DataType type = DataType::kFloat) {
  cudnn::GridSamplerCall call;
  call.pass = pass;
  call.data_type = type;
  call.input.sizes = {n, c, h, w};
  call.input.strides = transposed ? std::array<std::int64_t, 5>{c * h * w, h * w, 1, h}
                                  : std::array<std::int64_t, 5>{c * h * w, h * w, w, 1};
  call.grad_out.sizes = {n, c, ho, wo};
  call.grad_out.strides = {c * ho * wo, ho * wo, wo, 1};
  call.out_height = ho;
  call.out_width = wo;
  return call;
}

std::string refusal(const cudnn::GridSamplerCall& call, const std::string& what) {
  return gpu_test::thrown<std::invalid_argument>([&] { cudnn::plan_grid_sampler(call); }, what);
}

void plan_checks() {
  const cudnn::GridSamplerPlan plan = cudnn::plan_grid_sampler(call_of(SamplerPass::kForward, 2, 3, 4, 5, 6, 7, true));
  check(plan.x_strides[2] == 1 && plan.x_strides[3] == 4, "the input's own strides");
  check(plan.y_sizes[0] == 2 && plan.y_sizes[1] == 3 && plan.y_sizes[2] == 6 && plan.y_sizes[3] == 7,
        "the sampler's size is the output's (N, C, Ho, Wo)");
  check(contains(refusal(call_of(SamplerPass::kForward, 1, 1, 2, 2, 2, 2, false, DataType::kBFloat16), "bfloat16"),
                 "not bfloat16"),
        "bfloat16 refused");
  check(contains(refusal(call_of(SamplerPass::kForward, 1, 1, 2, 2, 0, 2, false), "empty"), "size 0"),
        "an empty output refused");
  cudnn::GridSamplerCall call = call_of(SamplerPass::kBackward, 1, 1, 2, 2, 3, 3, false);
  call.grad_out.sizes[3] = 4;
  check(contains(refusal(call, "grad size"), "grad_output's sizes"), "a gradient of another size refused");
  call = call_of(SamplerPass::kForward, 1, 1, 2, 2, 3, 3, false);
  call.input.strides[0] = std::int64_t{1} << 40;
  check(contains(refusal(call, "stride"), "exceeds cuDNN's int"), "a stride beyond int refused");
}

// ---- device -------------------------------------------------------------------------------

struct Reference {
  std::vector<double> y, dx, dgrid;
};

Reference reference(const cudnn::GridSamplerCall& call, const std::vector<double>& x, const std::vector<double>& grid,
                    const std::vector<double>& dy) {
  const auto& size = call.input.sizes;
  const auto& stride = call.input.strides;
  const std::int64_t n_ = size[0], c_ = size[1], h_ = size[2], w_ = size[3], ho = call.out_height,
                     wo = call.out_width;
  Reference r{std::vector<double>(n_ * c_ * ho * wo), std::vector<double>(x.size()), std::vector<double>(grid.size())};
  for (std::int64_t n = 0; n < n_; ++n) {
    for (std::int64_t i = 0; i < ho * wo; ++i) {
      const std::int64_t g = (n * ho * wo + i) * 2;
      const double px = (grid[g] + 1) / 2 * (w_ - 1), py = (grid[g + 1] + 1) / 2 * (h_ - 1);
      const double fx = std::floor(px), fy = std::floor(py);
      for (std::int64_t c = 0; c < c_; ++c) {
        const std::int64_t o = (n * c_ + c) * ho * wo + i;
        for (int k = 0; k < 4; ++k) {
          const std::int64_t xx = static_cast<std::int64_t>(fx) + (k & 1), yy = static_cast<std::int64_t>(fy) + k / 2;
          if (xx < 0 || xx >= w_ || yy < 0 || yy >= h_) continue;
          const double wx = (k & 1) ? px - fx : 1 - (px - fx), wy = (k / 2) ? py - fy : 1 - (py - fy);
          const std::int64_t at = n * stride[0] + c * stride[1] + yy * stride[2] + xx * stride[3];
          r.y[o] += wx * wy * x[at];
          r.dx[((n * c_ + c) * h_ + yy) * w_ + xx] += wx * wy * dy[o];
          r.dgrid[g] += ((k & 1) ? wy : -wy) * x[at] * dy[o] * (w_ - 1) / 2;
          r.dgrid[g + 1] += ((k / 2) ? wx : -wx) * x[at] * dy[o] * (h_ - 1) / 2;
        }
      }
    }
  }
  return r;
}

template <typename T>
void run_case(bool transposed, DataType type, cudaStream_t stream, const std::string& name) {
  cudnn::GridSamplerCall call = call_of(SamplerPass::kForward, 2, 3, 4, 5, 3, 4, transposed, type);
  const std::size_t n_x = 2 * 3 * 4 * 5, n_grid = 2 * 3 * 4 * 2, n_y = 2 * 3 * 3 * 4;
  std::vector<double> x(n_x), grid(n_grid), dy(n_y);
  for (std::size_t i = 0; i < n_x; ++i) x[i] = static_cast<double>((i * 5) % 13) / 4.0 - 1.5;
  for (std::size_t i = 0; i < n_grid; ++i) grid[i] = static_cast<double>((i * 7) % 23) / 9.0 - 1.25;
  for (std::size_t i = 0; i < n_y; ++i) dy[i] = static_cast<double>((i * 3) % 7) / 2.0 - 1.0;
  const Reference want = reference(call, x, grid, dy);
  gpu_test::DeviceBuffer<T> d_x(converted<T>(x)), d_grid(converted<T>(grid)), d_y{std::vector<T>(n_y)},
      d_dy(converted<T>(dy)),
      d_dx{std::vector<T>(n_x)}, d_dgrid{std::vector<T>(n_grid)};
  cudnn::GridSamplerBuffers b;
  b.x = d_x.get();
  b.grid = d_grid.get();
  b.y = d_y.get();
  b.dy = d_dy.get();
  b.dx = d_dx.get();
  b.dgrid = d_dgrid.get();
  cudnn::make_grid_sampler_executable(cudnn::plan_grid_sampler(call))->run(b, stream);
  call.pass = SamplerPass::kBackward;
  cudnn::make_grid_sampler_executable(cudnn::plan_grid_sampler(call))->run(b, stream);
  gpu_test::cuda_ok(cudaStreamSynchronize(stream), "sync");
  const double tolerance = type == DataType::kDouble ? 1e-9 : 1e-4;
  check(worst_error(d_y.to_host(), want.y) <= tolerance, name + ": output");
  check(worst_error(d_dx.to_host(), want.dx) <= tolerance, name + ": input gradient");
  check(worst_error(d_dgrid.to_host(), want.dgrid) <= tolerance * 10, name + ": grid gradient");
}

void device_checks(cudaStream_t stream) {
  gpu_test::load_cudnn_engine_libraries();
  run_case<float>(false, DataType::kFloat, stream, "float");
  run_case<float>(true, DataType::kFloat, stream, "float, transposed input");
  run_case<double>(false, DataType::kDouble, stream, "double");
}

void no_device_checks() {
  const cudnn::GridSamplerPlan plan = cudnn::plan_grid_sampler(call_of(SamplerPass::kForward, 1, 1, 2, 2, 2, 2, false));
  const std::string message = gpu_test::thrown<std::runtime_error>(
      [&] { cudnn::make_grid_sampler_executable(plan)->run({}, nullptr); }, "a sampler run without a GPU");
  check(contains(message, "CUDA") || contains(message, "cuDNN"), "the no-device error names CUDA or cuDNN: " + message);
}

}  // namespace

int main() {
  return gpu_test::run("cuDNN grid sampler", "cuDNN not run; grid-sampler plans and no-device behaviour checked",
                       plan_checks, no_device_checks, device_checks);
}
