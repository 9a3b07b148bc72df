#include "third_device/torch_cuda/torch_cuda/csrc/aten/cudnn/grid_sampler_plan.h"

#include <cstdint>
#include <string>

namespace torch_cuda::cudnn {
namespace {

constexpr const char* kPlan = "cuDNN grid sampler plan";

[[noreturn]] void refuse(const std::string& what) { cudnn::refuse(kPlan, what); }

int as_int(std::int64_t value, const char* what) { return as_cudnn_int(kPlan, value, what); }

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
    plan.x_sizes[d] = as_int(call.input.sizes[d], "an input size");
    plan.x_strides[d] = as_int(call.input.strides[d], "an input stride");
    plan.y_sizes[d] = as_int(out_sizes[d], "an output size");
    if (call.pass == SamplerPass::kBackward) {
      if (call.grad_out.sizes[d] != out_sizes[d]) refuse("grad_output's sizes are not the output's");
      plan.dy_strides[d] = as_int(call.grad_out.strides[d], "a grad_output stride");
    }
  }
  as_int(elements, "the input's element count");
  as_int(out_elements, "the output's element count");
  return plan;
}

}  // namespace torch_cuda::cudnn
