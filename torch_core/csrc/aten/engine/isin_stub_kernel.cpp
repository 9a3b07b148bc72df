// isin_default_stub's kernel: stock's device-generic isin picks it for small test sets
// (larger ones it sorts, over native operators). Every element against every test element,
// as stock's GPU kernel: a broadcast comparison and an any / all reduction.
#include <ATen/ExpandUtils.h>
#include <ATen/native/TensorCompare.h>
#include <ATen/ops/result_type.h>

#include "torch_core/csrc/aten/engine/stub_kernels.h"
#include "torch_core/csrc/aten/engine/stub_slot.h"

namespace torch_core::engine {

namespace {

void isin_default_kernel(const at::Tensor& elements, const at::Tensor& test_elements, bool invert,
                         const at::Tensor& out) {
  const c10::ScalarType common = at::result_type(elements, test_elements);
  const at::Tensor column = elements.to(common).unsqueeze(-1);
  const at::Tensor tests = test_elements.to(common).reshape({-1});
  out.copy_(invert ? column.ne(tests).all(-1) : column.eq(tests).any(-1));
}

}  // namespace

void fill_isin_stub(c10::DeviceType t) { set_slot(at::native::isin_default_stub, t, &isin_default_kernel); }

}  // namespace torch_core::engine
