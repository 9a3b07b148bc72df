// cross_stub's kernel (linalg.cross and torch.cross): stock's device-generic linalg_cross
// broadcasts the inputs (refusing an output that overlaps them) and calls it with the
// output. Each component is the difference of two products over native operators.
#include <ATen/native/Cross.h>

#include "torch_core/csrc/aten/engine/stub_kernels.h"
#include "torch_core/csrc/aten/engine/stub_slot.h"

namespace torch_core::engine {

namespace {

void cross_kernel(const at::Tensor& result, const at::Tensor& a, const at::Tensor& b, const int64_t dim) {
  for (int64_t i = 0; i < 3; ++i) {
    const int64_t j = (i + 1) % 3, k = (i + 2) % 3;
    result.select(dim, i).copy_(a.select(dim, j).mul(b.select(dim, k)).sub_(a.select(dim, k).mul(b.select(dim, j))));
  }
}

}  // namespace

void fill_cross_stub(c10::DeviceType t) { set_slot(at::native::cross_stub, t, &cross_kernel); }

}  // namespace torch_core::engine
