#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/grid_sampler_plan.h"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace torch_cuda::cudnn {
namespace {

[[noreturn]] void refuse(const std::string& what) {
  throw std::invalid_argument("cuDNN grid sampler plan: " + what);
}

int checked(std::int64_t value, const char* what) {
  if (!fits_int(value)) refuse(std::string(what) + " " + std::to_string(value) + " exceeds cuDNN's int");
  return static_cast<int>(value);
}

}  // namespace

GridSamplerPlan plan_grid_sampler(const GridSamplerCall& call) {
  if (call.data_type == DataType::kBFloat16) refuse("cuDNN's sampler takes float, double and half, not bfloat16");
  GridSamplerPlan plan;
  plan.pass = call.pass;
  plan.data_type = call.data_type;
  const std::int64_t out_sizes[4] = {call.input.sizes[0], call.input.sizes[1], call.out_height, call.out_width};
  std::int64_t elements = 1, out_elements = 1;
  for (int d = 0; d < 4; ++d) {
    if (call.input.sizes[d] <= 0 || out_sizes[d] <= 0) refuse("a tensor has a dimension of size 0");
    elements *= call.input.sizes[d];
    out_elements *= out_sizes[d];
    plan.x_sizes[d] = checked(call.input.sizes[d], "an input size");
    plan.x_strides[d] = checked(call.input.strides[d], "an input stride");
    plan.y_sizes[d] = checked(out_sizes[d], "an output size");
    if (call.pass == SamplerPass::kBackward) {
      if (call.grad_out.sizes[d] != out_sizes[d]) refuse("grad_output's sizes are not the output's");
      plan.dy_strides[d] = checked(call.grad_out.strides[d], "a grad_output stride");
    }
  }
  checked(elements, "the input's element count");
  checked(out_elements, "the output's element count");
  return plan;
}

}  // namespace torch_cuda::cudnn
